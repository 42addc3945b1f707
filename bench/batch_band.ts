/**
 * What a running batch costs interactive traffic: an interactive client's latency idle, then
 * while a batch of 200 requests runs in the batch band (the seed's admission figure: within
 * 1.25x of idle). A measurement, not a test: it prints the figures and the ratio.
 *
 *   ./node_modules/.bin/deno run -A bench/batch_band.ts
 *
 * The control plane (the real app, the batch runner serve.ts starts) runs in this process; the
 * simulated engine (four slots) in a child process of its own, as an engine runs beside a node.
 */
import OpenAI, { toFile } from "openai";
import { startHarness } from "../tests/helpers/harness.ts";
import { dispatchDeps } from "../server/wiring/app.ts";
import { BatchRunner } from "../server/batches/batch_runner.ts";
import { selfCommand, selfCommandEnv } from "../core/self_command.ts";

const tokensPerSecond = 400;
const samples = 30;

const { cmd, args } = selfCommand([
  "sim-engine",
  "--port",
  "0",
  "--tokens-per-second",
  String(tokensPerSecond),
]);
const engine = new Deno.Command(cmd, {
  args,
  env: selfCommandEnv(),
  stdout: "piped",
  stderr: "null",
}).spawn();
const engineUrl = await (async () => {
  let text = "";
  for await (const chunk of engine.stdout.pipeThrough(new TextDecoderStream())) {
    text += chunk;
    const m = /listening on (\S+)/.exec(text);
    if (m) return m[1]!;
  }
  throw new Error("the sim engine did not start");
})();

// A store file, as in production: the runner writes while requests read (an in-memory store has
// one connection, and refuses a read while a write transaction is open).
const dir = await Deno.makeTempDir({ prefix: "llmgw-bench-batch-" });
const h = await startHarness({ tokensPerSecond, storePath: `${dir}/store.db` });
h.deps.replicas.upsert({ id: "r1", model: "demo", baseUrl: engineUrl, apiKey: "", state: "ready" });
const openai = new OpenAI({
  baseURL: "http://llmgw.bench/v1",
  apiKey: h.key,
  maxRetries: 0,
  fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
});
const runner = new BatchRunner({
  store: h.deps.store,
  clock: h.deps.clock,
  logger: h.deps.logger,
  keys: h.deps.keys,
  files: h.deps.files,
  dispatch: dispatchDeps(h.deps),
  usage: h.deps.usage,
  settings: h.deps.fileLimits,
});

async function interactive(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await openai.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: `interactive ${i}` }],
      max_tokens: 16,
    });
    out.push(performance.now() - t0);
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;

try {
  await interactive(3); // warm
  const idle = await interactive(samples);
  const lines = Array.from({ length: 200 }, (_, i) =>
    JSON.stringify({
      custom_id: `b-${i}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model: "demo", messages: [{ role: "user", content: `batch ${i}` }], max_tokens: 16 },
    })).join("\n");
  const file = await openai.files.create({
    file: await toFile(new TextEncoder().encode(lines), "bench.jsonl"),
    purpose: "batch",
  });
  const batch = await openai.batches.create({
    input_file_id: file.id,
    endpoint: "/v1/chat/completions",
    completion_window: "24h",
  });
  runner.start();
  const busy = await interactive(samples);
  const during = await openai.batches.retrieve(batch.id);
  const ratio = median(busy) / median(idle);
  console.log(JSON.stringify({
    tokensPerSecond,
    samples,
    idleMedianMs: Math.round(median(idle)),
    idleP95Ms: Math.round(p95(idle)),
    withBatchMedianMs: Math.round(median(busy)),
    withBatchP95Ms: Math.round(p95(busy)),
    ratio: Number(ratio.toFixed(3)),
    batchLinesDoneWhileMeasuring: during.request_counts?.completed,
    withinTarget: ratio <= 1.25,
  }));
} finally {
  await runner.stop();
  await h.close();
  await Deno.remove(dir, { recursive: true });
  engine.kill("SIGTERM");
  await engine.status;
}
