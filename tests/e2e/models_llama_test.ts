/**
 * `ctl model serve tiny-random-llama.gguf` on the real llama.cpp engine: plan (GGUF header read by
 * the control plane), add, placed by the reconciler on a CPU-only agent, started by it with the
 * placement's profile, smoke-tested, and answering through /v1. Skipped, saying why, unless
 * LLAMA_SERVER names a llama-server binary and the fixture is present.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { eventually, spawnLlmgw } from "../helpers/llmgw_process.ts";
import { fixture } from "../helpers/fixtures.ts";
import { systemClock } from "../../core/clock.ts";
import { createLogger } from "../../core/log.ts";
import { loadServerConfig } from "../../server/config.ts";
import { startControlPlane } from "../../server/serve.ts";
import { initDataDir } from "../../server/setup/init.ts";
import { ctlCommand } from "../../server/cli/ctl.ts";

const llama = Deno.env.get("LLAMA_SERVER");
const gguf = llama ? fixture("tiny-random-llama.gguf") : undefined;
if (!llama) console.warn("SKIPPED models_llama_test: set LLAMA_SERVER to a llama-server binary");

Deno.test({
  name: "ctl model serve: a GGUF on the real llama.cpp engine answers through /v1",
  ignore: !llama || !gguf,
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-serve-" });
  const cpDir = `${root}/cp`;
  await initDataDir(cpDir, { clock: systemClock });
  const config = await loadServerConfig({
    flags: {
      listen: "127.0.0.1:0",
      "cluster-listen": "127.0.0.1:0",
      portal: "false",
      "nodes-heartbeat-ms": "300",
      "reconciler-interval-ms": "300",
    },
    env: { LLMGW_DATA: cpDir },
  });
  const cp = await startControlPlane(config, { logger: createLogger({ level: "warn" }) });
  const token = (await Deno.readTextFile(`${cpDir}/admin.token`)).trim();
  // Away from the default range, which other programs on a shared machine may hold.
  const port = 42000 + Math.floor(Math.random() * 5000);
  const code = await cp.deps.nodes!.joinCodes.create({ labels: {}, ttlMs: 60_000 });
  const agent = spawnLlmgw(
    [
      "join",
      code.code,
      "--data",
      `${root}/node`,
      "--name",
      "cpu",
      "--engines-ports",
      `${port}-${port + 20}`,
      "--engines-llama-server",
      llama!,
      "--gpu-nvml-library",
      `${root}/absent-libnvidia-ml.so.1`,
      "--gpu-nvidia-smi",
      `${root}/absent-nvidia-smi`,
    ],
    {},
    "agent",
  );
  try {
    await eventually("the node reporting its engines", async () => {
      const res = await fetch(`${cp.url}/api/v1/nodes`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const nodes = (await res.json()).data as { engines?: unknown[] }[];
      return nodes[0]?.engines ? true : undefined;
    }, 30_000);
    const out: string[] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => out.push(a.join(" "));
    let code = 1;
    try {
      code = await ctlCommand.run([
        "model",
        "serve",
        gguf!,
        "--name",
        "tiny",
        "--wait-ms",
        "60000",
        "--url",
        cp.url,
        "--token",
        token,
      ]);
    } finally {
      console.log = log;
    }
    assertEquals(code, 0, out.join("\n") + "\n" + agent.output());
    assertMatch(out.join("\n"), /tiny answers: a chat completion/);
    const { key } = await (await fetch(`${cp.url}/api/v1/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "serve" }),
    })).json();
    const res = await fetch(`${cp.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny",
        max_tokens: 4,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals((await res.json()).object, "chat.completion");
  } finally {
    await agent.kill("SIGTERM");
    await cp.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
});
