/**
 * `llmgw up --model X.gguf` with no llama-server to run it refuses, saying how to install one and
 * where to point llmgw at it, rather than serving the simulated model under the GGUF's promise.
 */
import { assertEquals, assertMatch } from "../assert.ts";
import { loopbackListeners, spawnLlmgw } from "../helpers/llmgw_process.ts";

Deno.test("llmgw up --model X.gguf without llama-server refuses and says how to get it", async () => {
  const root = await Deno.makeTempDir({ prefix: "llmgw-up-gguf-" });
  try {
    const gguf = `${root}/tiny.gguf`;
    await Deno.writeFile(gguf, new Uint8Array(16));
    const up = spawnLlmgw([
      "up",
      "--data",
      `${root}/data`,
      ...loopbackListeners,
      "--model",
      gguf,
      "--engines-llama-server",
      `${root}/no-such/llama-server`,
    ]);
    const status = await Promise.race([
      up.status,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`still running:\n${up.output()}`)), 60_000)
      ),
    ]).catch(async (e) => {
      await up.kill("SIGKILL");
      throw e;
    });
    assertEquals(status.code, 2, up.output());
    assertMatch(up.output(), /llama-server' was not found/);
    assertMatch(up.output(), /Install llama\.cpp/);
    assertMatch(up.output(), /--engines-llama-server PATH\s+\(LLMGW_ENGINES_LLAMA_SERVER/);
    assertEquals(/llmgw is up/.test(up.output()), false, "nothing was served");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
