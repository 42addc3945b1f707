import { assertEquals } from "../tests/assert.ts";
import { engineNames, engineTraits } from "../core/engines/engine_traits.ts";
import { loadAgentConfig, settingText } from "./agent_config.ts";

Deno.test("each engine's binary setting is an agent setting, read as the agent resolved it", async () => {
  const config = await loadAgentConfig({
    flags: { data: "/nonexistent/llmgw-agent", "engines-vllm": "/opt/vllm/bin/vllm" },
    env: {},
  });
  assertEquals(settingText(config, "engines.vllm"), "/opt/vllm/bin/vllm");
  assertEquals(settingText(config, "engines.llama_server"), "llama-server");
  for (const name of engineNames) {
    const setting = engineTraits[name].binarySetting;
    if (setting) assertEquals(typeof settingText(config, setting), "string", setting);
  }
  assertEquals(settingText(config, "engines.nonesuch"), undefined);
  // A setting that is not text names no executable.
  assertEquals(settingText(config, "channel.heartbeat_ms"), undefined);
});
