/**
 * /v1/files and /v1/batches through the official OpenAI SDK against the real app, with the batch
 * runner serve.ts starts built the same way here (the harness starts no background loops).
 */
import OpenAI, { NotFoundError, toFile } from "openai";
import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { type Harness, type HarnessOptions, startHarness } from "../../tests/helpers/harness.ts";
import { usage } from "../../db/schema.ts";
import { dispatchDeps } from "../wiring/app.ts";
import { BatchRunner } from "../batches/batch_runner.ts";

function client(h: Harness, key = h.key): OpenAI {
  return new OpenAI({
    baseURL: "http://llmgw.test/v1",
    apiKey: key,
    maxRetries: 0,
    fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
  });
}

/** The harness on a store file (removed with the harness): the runner writes while tests read. */
async function fileHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-batches-" });
  const h = await startHarness({ ...opts, storePath: `${dir}/store.db` });
  return {
    ...h,
    async close() {
      await h.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function runner(h: Harness): BatchRunner {
  const d = h.deps;
  return new BatchRunner({
    store: d.store,
    clock: d.clock,
    logger: d.logger,
    keys: d.keys,
    files: d.files,
    dispatch: dispatchDeps(d),
    usage: d.usage,
    settings: d.fileLimits,
  });
}

const requests = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      custom_id: `req-${i}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model: "demo", messages: [{ role: "user", content: `Say ${i}` }], max_tokens: 3 },
    })).join("\n") + "\n";

async function until(
  openai: OpenAI,
  id: string,
  done: (b: OpenAI.Batch) => boolean,
): Promise<OpenAI.Batch> {
  for (let i = 0; i < 600; i++) {
    const b = await openai.batches.retrieve(id);
    if (done(b)) return b;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`batch ${id} did not get there`);
}

async function outputLines(openai: OpenAI, fileId: string) {
  const text = await (await openai.files.content(fileId)).text();
  return text.trim().split("\n").map((l) => JSON.parse(l));
}

Deno.test("files: upload, list, retrieve, content, delete; another key's file is a 404", async () => {
  const h = await fileHarness();
  try {
    const openai = client(h);
    const f = await openai.files.create({
      file: await toFile(new TextEncoder().encode("hello\n"), "notes.txt"),
      purpose: "user_data",
    });
    assertEquals([f.filename, f.bytes, f.purpose], ["notes.txt", 6, "user_data"]);
    assertEquals((await openai.files.list()).data.map((x) => x.id), [f.id]);
    assertEquals((await openai.files.retrieve(f.id)).bytes, 6);
    assertEquals(await (await openai.files.content(f.id)).text(), "hello\n");
    const { key: other } = await h.deps.keys.create({ name: "other" });
    await assertRejects(() => client(h, other).files.retrieve(f.id), NotFoundError);
    await assertRejects(() => client(h, other).files.content(f.id), NotFoundError);
    await openai.files.delete(f.id);
    await assertRejects(() => openai.files.retrieve(f.id), NotFoundError);
    const bad = await assertRejects(() =>
      openai.files.create({
        file: new File([new Uint8Array(1)], "x"),
        purpose: "fine-tune" as "batch",
      })
    );
    assert(String(bad).includes("purpose"));
  } finally {
    await h.close();
  }
});

Deno.test("a batch of 200 chat requests runs to completed, each custom_id once in the output", async () => {
  const h = await fileHarness();
  const r = runner(h);
  try {
    const openai = client(h);
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(requests(200)), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    assertEquals(created.status, "in_progress");
    assertEquals(created.request_counts?.total, 200);
    r.start(20);
    const b = await until(openai, created.id, (x) => x.status === "completed");
    assertEquals(b.request_counts, { total: 200, completed: 200, failed: 0 });
    assert(b.output_file_id && b.error_file_id === null);
    const lines = await outputLines(openai, b.output_file_id);
    assertEquals(lines.length, 200);
    assertEquals(new Set(lines.map((l) => l.custom_id)).size, 200);
    const first = lines.find((l) => l.custom_id === "req-7")!;
    assertEquals(first.response.status_code, 200);
    assertEquals(first.response.body.usage.completion_tokens, 3);
    await h.usage.flush();
    const rows = await h.store.db.select().from(usage);
    assertEquals(rows.length, 200, "each line charged once");
    assert(rows.every((u) => u.profile === "batch"), "in the batch profile");

    // The same request sent interactively pays the full price; the batch line half of it.
    await openai.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "Say 7" }],
      max_tokens: 3,
    });
    await h.usage.flush();
    const all = await h.store.db.select().from(usage);
    const interactive = all.find((u) => u.profile !== "batch")!;
    const batchRow = all.find((u) => u.requestId === first.response.request_id)!;
    assert(interactive.costMicros > 0);
    assertEquals(batchRow.costMicros, Math.ceil(interactive.costMicros / 2));
  } finally {
    await r.stop();
    await h.close();
  }
});

Deno.test("a model's own batch price (prices.batch_percent) is what its batch lines pay", async () => {
  const h = await fileHarness();
  const r = runner(h);
  try {
    await h.deps.catalog.upsert({
      name: "demo",
      engine: "sim",
      source: "",
      pricePrompt: 1000,
      priceCompletion: 3000,
      priceBatchPercent: 20,
    });
    const openai = client(h);
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(requests(1)), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    r.start(20);
    const b = await until(openai, created.id, (x) => x.status === "completed");
    const [line] = await outputLines(openai, b.output_file_id!);
    await openai.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "Say 0" }],
      max_tokens: 3,
    });
    await h.usage.flush();
    const all = await h.store.db.select().from(usage);
    const interactive = all.find((u) => u.profile !== "batch")!;
    const batchRow = all.find((u) => u.requestId === line.response.request_id)!;
    assert(interactive.costMicros > 0);
    assertEquals(batchRow.costMicros, Math.ceil(interactive.costMicros * 20 / 100));
  } finally {
    await r.stop();
    await h.close();
  }
});

Deno.test("a batch whose runner stops midway is finished by a new one, each line once", async () => {
  // Slow enough (about 150 ms a line, three at once) that the stop comes well before the end.
  const h = await fileHarness({ tokensPerSecond: 20 });
  try {
    const openai = client(h);
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(requests(40)), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    const firstRunner = runner(h);
    firstRunner.start(20);
    await until(openai, created.id, (x) => (x.request_counts?.completed ?? 0) >= 5);
    await firstRunner.stop();
    const midway = await openai.batches.retrieve(created.id);
    assertEquals(midway.status, "in_progress");
    assert(midway.request_counts!.completed < 40, "stopped before the end");

    // As after a restart: nothing but the store is carried over.
    const second = runner(h);
    second.start(20);
    try {
      const b = await until(openai, created.id, (x) => x.status === "completed");
      const lines = await outputLines(openai, b.output_file_id!);
      assertEquals(
        lines.map((l) => l.custom_id).sort(),
        [...Array(40).keys()].map((i) => `req-${i}`).sort(),
      );
      await h.usage.flush();
      assertEquals((await h.store.db.select().from(usage)).length, 40, "none run twice");
    } finally {
      await second.stop();
    }
  } finally {
    await h.close();
  }
});

Deno.test("a batch never takes a replica's last slot", async () => {
  const h = await fileHarness({ tokensPerSecond: 100 });
  const r = runner(h);
  try {
    const openai = client(h);
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(requests(30)), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    const replica = h.deps.replicas.get("r1")!;
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, replica.inFlight)), 2);
    r.start(10);
    await until(openai, created.id, (x) => x.status === "completed");
    clearInterval(watch);
    assertEquals(most, replica.slots - h.deps.fileLimits.batchInteractiveSlots);
  } finally {
    await r.stop();
    await h.close();
  }
});

Deno.test("a cancelled batch ends cancelled, what ran in the output, the rest as errors", async () => {
  // Slow enough that the cancel comes well before the last line.
  const h = await fileHarness({ tokensPerSecond: 20 });
  const r = runner(h);
  try {
    const openai = client(h);
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(requests(40)), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    r.start(10);
    await until(openai, created.id, (x) => (x.request_counts?.completed ?? 0) >= 2);
    assertEquals((await openai.batches.cancel(created.id)).status, "cancelling");
    const b = await until(openai, created.id, (x) => x.status === "cancelled");
    const ok = b.output_file_id ? await outputLines(openai, b.output_file_id) : [];
    const failed = b.error_file_id ? await outputLines(openai, b.error_file_id) : [];
    assertEquals(ok.length + failed.length, 40);
    assert(ok.length >= 2 && failed.length > 0);
  } finally {
    await r.stop();
    await h.close();
  }
});

Deno.test("a batch of /v1/responses lines answers in the Responses shape", async () => {
  const h = await fileHarness();
  const r = runner(h);
  try {
    const openai = client(h);
    const lines = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({
        custom_id: `r-${i}`,
        method: "POST",
        url: "/v1/responses",
        body: { model: "demo", input: `Say ${i}`, max_output_tokens: 4 },
      })).join("\n");
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(lines), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/responses",
      completion_window: "24h",
    });
    r.start(20);
    const b = await until(openai, created.id, (x) => x.status === "completed");
    const out = await outputLines(openai, b.output_file_id!);
    assertEquals(out.length, 5);
    assertEquals(out[0].response.body.object, "response");
    assertEquals(out[0].response.body.usage.output_tokens, 4);
    await h.usage.flush();
    const rows = await h.store.db.select().from(usage);
    assertEquals(rows.map((u) => u.endpoint), Array(5).fill("/responses"));
  } finally {
    await r.stop();
    await h.close();
  }
});

Deno.test("an input file with a repeated custom_id or another url is refused at create", async () => {
  const h = await fileHarness();
  try {
    const openai = client(h);
    const twice = requests(2).replace("req-1", "req-0");
    for (const text of [twice, requests(1).replace("/v1/chat/completions", "/v1/embeddings")]) {
      const input = await openai.files.create({
        file: await toFile(new TextEncoder().encode(text), "in.jsonl"),
        purpose: "batch",
      });
      const res = await h.v1("/batches", {
        input_file_id: input.id,
        endpoint: "/v1/chat/completions",
        completion_window: "24h",
      });
      assertEquals(res.status, 400);
      assertEquals((await res.json()).error.param, "input_file_id");
    }
  } finally {
    await h.close();
  }
});

Deno.test("a rate-limited line waits and runs again, it does not fail", async () => {
  const h = await fileHarness();
  const r = runner(h);
  try {
    const openai = client(h);
    assertEquals((await h.admin("PATCH", "limits/global/global", { rpm: 3 })).status, 200);
    const input = await openai.files.create({
      file: await toFile(new TextEncoder().encode(requests(6)), "in.jsonl"),
      purpose: "batch",
    });
    const created = await openai.batches.create({
      input_file_id: input.id,
      endpoint: "/v1/chat/completions",
      completion_window: "24h",
    });
    r.start(10);
    const held = await until(openai, created.id, (x) => x.request_counts?.completed === 3);
    await new Promise((res) => setTimeout(res, 200));
    const still = await openai.batches.retrieve(created.id);
    assertEquals([still.status, still.request_counts?.failed], ["in_progress", 0], held.id);
    // The windows slide past (two minutes: the sliding window still weighs the last one): the
    // rest run.
    h.clock.advance(121_000);
    const b = await until(openai, created.id, (x) => x.status === "completed");
    assertEquals(b.request_counts, { total: 6, completed: 6, failed: 0 });
  } finally {
    await r.stop();
    await h.close();
  }
});
