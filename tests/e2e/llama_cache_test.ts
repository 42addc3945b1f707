/**
 * Cache-aware placement measured on a real llama-server: two replicas of the tiny GGUF with two
 * slots each, conversations sent in turn, each turn repeating the conversation so far. The cached
 * share is what the engine did not recompute (`usage.prompt_tokens - timings.prompt_n`). Runs only
 * when LLAMA_SERVER names the binary; CI runs the same on sim engines
 * (server/router/cache_placement_test.ts).
 */
import { assert, assertEquals } from "../assert.ts";
import { startHarness } from "../helpers/harness.ts";
import { addReplica, usageRows } from "../helpers/routing.ts";
import { runMultiturn } from "../../bench/multiturn.ts";

const llamaServer = Deno.env.get("LLAMA_SERVER");
const fixture =
  new URL("../../../shared/fixtures/tiny-random-llama.gguf", import.meta.url).pathname;
const why = "set LLAMA_SERVER to a llama-server binary to run it";
const engineKey = "llama-engine-key";

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function startLlama(saveDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = freePort();
  const child = new Deno.Command(llamaServer!, {
    args: [
      ...["-m", fixture, "--host", "127.0.0.1", "--port", String(port), "-np", "2", "-c", "8192"],
      ...["--slot-save-path", saveDir],
    ],
    env: { LLAMA_API_KEY: engineKey },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`);
      await res.body?.cancel();
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error("llama-server did not become healthy");
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

async function twoLlamaReplicas() {
  // The catalog's model is the harness's "sim"; these replicas are llama-servers all the same.
  const h = await startHarness({ routing: { slotKeeperEngines: ["sim"] } });
  h.deps.replicas.remove("r1");
  const saveDir = await Deno.makeTempDir({ prefix: "llmgw-slots-" });
  const engines: { url: string; stop(): Promise<void> }[] = [];
  for (const name of ["a", "b"]) {
    await Deno.mkdir(`${saveDir}/${name}`);
    engines.push(await startLlama(`${saveDir}/${name}/`));
  }
  engines.forEach((e, i) => addReplica(h, `llama-${i}`, e.url, { apiKey: engineKey, slots: 2 }));
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, h.app.fetch);
  return {
    h,
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    async close() {
      await server.shutdown();
      for (const e of engines) await e.stop();
      await h.close();
      await Deno.remove(saveDir, { recursive: true });
    },
  };
}

// About 750 prompt tokens a request on average over six turns, as in the issue's measurement.
const conversation = { openingWords: 400, turnWords: 60, maxTokens: 16, timeoutMs: 60_000 };

Deno.test({
  name: `llama-server: 4 conversations over 2 replicas × 2 slots reach 70 % cached${
    llamaServer ? "" : ` (skipped: ${why})`
  }`,
  ignore: !llamaServer,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const t = await twoLlamaReplicas();
    try {
      const r = await runMultiturn({
        url: t.url,
        key: t.h.key,
        model: "demo",
        conversations: 4,
        turns: 6,
        ...conversation,
      });
      console.log(
        `4 conversations: cached ${(r.cachedShare * 100).toFixed(1)} % of ${r.promptTokens}`,
      );
      assertEquals(r.failed, 0);
      assert(r.cachedShare >= 0.7, `cached share ${r.cachedShare.toFixed(3)}`);
      const rows = await usageRows(t.h);
      const cached = rows.reduce((n, row) => n + (row.cachedTokens ?? 0), 0);
      assertEquals(cached, r.cachedTokens, "usage rows carry the cached tokens");
    } finally {
      await t.close();
    }
  },
});

Deno.test({
  name:
    `llama-server: 8 conversations over the same 4 slots reach 40 % cached, saved to disk and restored${
      llamaServer ? "" : ` (skipped: ${why})`
    }`,
  ignore: !llamaServer,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const t = await twoLlamaReplicas();
    try {
      const r = await runMultiturn({
        url: t.url,
        key: t.h.key,
        model: "demo",
        conversations: 8,
        turns: 6,
        ...conversation,
      });
      console.log(
        `8 conversations: cached ${(r.cachedShare * 100).toFixed(1)} % of ${r.promptTokens}`,
      );
      assertEquals(r.failed, 0);
      assert(r.cachedShare >= 0.4, `cached share ${r.cachedShare.toFixed(3)}`);
    } finally {
      await t.close();
    }
  },
});
