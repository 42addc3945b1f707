/**
 * Cache-aware placement measured on a real llama-server: two replicas of the tiny GGUF with two
 * slots each, conversations sent in turn, each turn repeating the conversation so far. The cached
 * share is what the engine did not recompute (`usage.prompt_tokens - timings.prompt_n`). Runs only
 * when LLAMA_SERVER names the binary; CI runs the same on sim engines
 * (server/router/cache_placement_test.ts).
 */
import { assert, assertEquals } from "../assert.ts";
import { type SharedStore, startPlanes } from "../helpers/shared_store.ts";
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

/**
 * Two llama-servers of 2 slots each behind `planes` control planes on one store (the harness's
 * model "sim" served by llama-servers all the same), `conversations` × 6 turns sent in turn,
 * request k to control plane k mod `planes`. Returns the run and the usage rows' cached tokens.
 */
async function measure(
  conversations: number,
  o: { planes?: number; slotKeeper?: boolean } = {},
) {
  const saveDir = await Deno.makeTempDir({ prefix: "llmgw-slots-" });
  const engines: { url: string; stop(): Promise<void> }[] = [];
  const servers: Deno.HttpServer<Deno.NetAddr>[] = [];
  let shared: SharedStore | undefined;
  try {
    for (const name of ["a", "b"]) {
      await Deno.mkdir(`${saveDir}/${name}`);
      engines.push(await startLlama(`${saveDir}/${name}/`));
    }
    shared = await startPlanes(o.planes ?? 1, {
      routing: { slotKeeperEngines: o.slotKeeper === false ? [] : ["sim"] },
    });
    for (const h of shared.planes) {
      h.deps.replicas.remove("r1");
      engines.forEach((e, i) =>
        addReplica(h, `llama-${i}`, e.url, { apiKey: engineKey, slots: 2 })
      );
      servers.push(Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, h.app.fetch));
    }
    const first = shared.planes[0]!;
    const r = await runMultiturn({
      url: servers.map((s) => `http://127.0.0.1:${s.addr.port}/v1`),
      key: first.key,
      model: "demo",
      conversations,
      turns: 6,
      ...conversation,
    });
    console.log(
      `${conversations} conversations, ${shared.planes.length} control plane(s): cached ${
        (r.cachedShare * 100).toFixed(1)
      } % of ${r.promptTokens}`,
    );
    for (const h of shared.planes) await h.usage.flush();
    const cached = (await usageRows(first)).reduce((n, row) => n + (row.cachedTokens ?? 0), 0);
    return { r, cached };
  } finally {
    for (const s of servers) await s.shutdown();
    await shared?.close();
    for (const e of engines) await e.stop();
    await Deno.remove(saveDir, { recursive: true });
  }
}

// About 750 prompt tokens a request on average over six turns, as in the issue's measurement.
const conversation = { openingWords: 400, turnWords: 60, maxTokens: 16, timeoutMs: 60_000 };

function llamaTest(name: string, fn: () => Promise<void>): void {
  Deno.test({
    name: `llama-server: ${name}${llamaServer ? "" : ` (skipped: ${why})`}`,
    ignore: !llamaServer,
    sanitizeOps: false,
    sanitizeResources: false,
    fn,
  });
}

llamaTest("4 conversations over 2 replicas × 2 slots reach 70 % cached", async () => {
  const { r, cached } = await measure(4);
  assertEquals(r.failed, 0);
  assert(r.cachedShare >= 0.7, `cached share ${r.cachedShare.toFixed(3)}`);
  assertEquals(cached, r.cachedTokens, "usage rows carry the cached tokens");
});

llamaTest(
  "8 conversations over the same 4 slots reach 40 % cached, saved to disk and restored",
  async () => {
    const { r } = await measure(8);
    assertEquals(r.failed, 0);
    assert(r.cachedShare >= 0.4, `cached share ${r.cachedShare.toFixed(3)}`);
  },
);

llamaTest("4 conversations whose turns go round 3 control planes reach 70 % cached", async () => {
  // Without pinned slots: each control plane's slot keeper knows only the slots it pinned itself.
  const { r } = await measure(4, { planes: 3, slotKeeper: false });
  assertEquals(r.failed, 0);
  assert(r.cachedShare >= 0.7, `cached share ${r.cachedShare.toFixed(3)}`);
});
