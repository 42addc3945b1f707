/**
 * The answer cache through the real app: settings through the admin API, requests through /v1,
 * the sim engine behind it; what the engine was asked is read from the usage rows (a cached
 * answer has no replica).
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, type HarnessOptions, startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, addSimReplica, chat, usageRows } from "../../tests/helpers/routing.ts";
import { type EchoEngine, startEchoEngine } from "../../tests/helpers/echo_engine.ts";

async function withHarness(fn: (h: Harness) => Promise<void>, opts: HarnessOptions = {}) {
  const h = await startHarness(opts);
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

async function setLimits(h: Harness, path: string, body: unknown): Promise<void> {
  const res = await h.admin("PATCH", `limits/${path}`, body);
  assertEquals(res.status, 200, await res.text());
}

const cacheOn = (h: Harness, extra: Record<string, unknown> = {}) =>
  setLimits(h, "global/global", { cache: true, ...extra });

/** A request the cache may keep: temperature 0. */
const ask = (text: string, extra: Record<string, unknown> = {}) =>
  chat(text, { temperature: 0, ...extra });

async function send(h: Harness, body: unknown, key?: string) {
  const res = await h.v1(
    "/chat/completions",
    body,
    key ? { headers: { authorization: `Bearer ${key}` } } : {},
  );
  return { status: res.status, cache: res.headers.get("x-llmgw-cache"), text: await res.text() };
}

/** The usage rows in order, as cached or answered by an engine. */
async function served(h: Harness): Promise<string[]> {
  const rows = (await usageRows(h)).filter((r) => r.keyId !== "llmgw-gateway");
  rows.sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
  return rows.map((r) => r.answerCache ?? (r.replicaId ? "engine" : "none"));
}

Deno.test("off unless a level turns it on: the same question twice goes to the engine twice, with no cache header", async () => {
  await withHarness(async (h) => {
    const a = await send(h, ask("hello there"));
    const b = await send(h, ask("hello there"));
    assertEquals([a.cache, b.cache], [null, null]);
    assertEquals(await served(h), ["engine", "engine"]);
  });
});

Deno.test("exact: the identical question is answered from the cache (hit), whatever user and metadata say; charged at the cache price", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    const first = await send(h, ask("what is the capital of France?", { user: "ann" }));
    const again = await send(
      h,
      ask("what is the capital of France?", { user: "bob", metadata: { run: "2" } }),
    );
    assertEquals([first.status, again.status], [200, 200]);
    assertEquals([first.cache, again.cache], ["miss", "hit"]);
    assertEquals(again.text, first.text, "the answer as it was sent");
    const rows = await usageRows(h);
    const hit = rows.find((r) => r.answerCache === "exact")!;
    const miss = rows.find((r) => r.answerCache === null)!;
    assertEquals(hit.replicaId, null);
    assertEquals(hit.servedModel, "demo");
    assertEquals([hit.promptTokens, hit.completionTokens], [
      miss.promptTokens,
      miss.completionTokens,
    ]);
    assert(miss.costMicros > 0);
    assertEquals(hit.costMicros, 0, "the cache price is 0 unless set");

    // With a cache price, a hit costs its tokens at that price.
    const res = await h.admin("PUT", "prices/demo", {
      prompt_per_1k: 1000,
      completion_per_1k: 2000,
      cache_hit_per_1k: 1000,
    });
    assertEquals(res.status, 200);
    // A price change is a catalog change: the model's answers went with it.
    assertEquals((await send(h, ask("what is the capital of France?"))).cache, "miss");
    assertEquals((await send(h, ask("what is the capital of France?"))).cache, "hit");
    const priced = (await usageRows(h)).filter((r) => r.answerCache === "exact").at(-1)!;
    assertEquals(priced.costMicros, priced.promptTokens + priced.completionTokens);
  });
});

Deno.test("what changes the answer changes the key: another message, temperature or max_tokens misses", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    await send(h, ask("one question"));
    assertEquals((await send(h, ask("another question"))).cache, "miss");
    assertEquals((await send(h, ask("one question", { max_tokens: 3 }))).cache, "miss");
    assertEquals((await send(h, ask("one question", { seed: 7 }))).cache, "miss");
    assertEquals((await send(h, ask("one question"))).cache, "hit");
  });
});

Deno.test("temperature above 0 (or none given) is not cached unless the level says cache_temperature", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    const warm = chat("tell me a story", { temperature: 0.7 });
    assertEquals((await send(h, warm)).cache, null);
    assertEquals((await send(h, chat("no temperature given"))).cache, null);
    await setLimits(h, "global/global", { cache_temperature: true });
    assertEquals((await send(h, warm)).cache, "miss");
    assertEquals((await send(h, warm)).cache, "hit");
  });
});

Deno.test("never across tenants: another key (another project) asking the same misses; a key may turn it off below a level that turns it on", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    const other = await h.deps.keys.create({ name: "other" });
    await send(h, ask("shared question"));
    assertEquals((await send(h, ask("shared question"), other.key)).cache, "miss");
    assertEquals((await send(h, ask("shared question"), other.key)).cache, "hit");
    await setLimits(h, `key/${other.id}`, { cache: false });
    assertEquals((await send(h, ask("shared question"), other.key)).cache, null);
    const show = await (await h.admin("GET", `limits/key/${other.id}`)).json();
    assertEquals(show.cache.on, false);
  });
});

Deno.test("a model that changes drops its answers", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    await send(h, ask("before the change"));
    assertEquals((await send(h, ask("before the change"))).cache, "hit");
    await h.deps.catalog.upsert({ name: "demo", engine: "sim", source: "", description: "New" });
    assertEquals((await send(h, ask("before the change"))).cache, "miss");
    assertEquals(h.deps.answerCache.size, 1);
  });
});

/** A streamed answer's content, its usage chunk (if any) and whether it ended with [DONE]. */
function readStream(text: string) {
  let content = "";
  let usage: Record<string, number> | undefined;
  const events = text.split("\n\n").filter(Boolean);
  for (const ev of events) {
    assert(ev.startsWith("data: "), ev);
    if (ev === "data: [DONE]") continue;
    const chunk = JSON.parse(ev.slice(6));
    for (const c of chunk.choices) content += c.delta?.content ?? "";
    if (chunk.usage) usage = chunk.usage;
  }
  return { content, usage, done: events.at(-1) === "data: [DONE]", events: events.length };
}

Deno.test("a streamed request is streamed back from the cache in the same shape: chunks, usage when asked, [DONE]", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    const streamed = ask("stream me", { stream: true, max_tokens: 6 });
    const first = await send(h, { ...streamed, stream_options: { include_usage: true } });
    assertEquals(first.cache, "miss");
    const withUsage = await send(h, { ...streamed, stream_options: { include_usage: true } });
    const without = await send(h, streamed);
    assertEquals([withUsage.cache, without.cache], ["hit", "hit"]);
    const [a, b, c] = [
      readStream(first.text),
      readStream(withUsage.text),
      readStream(without.text),
    ];
    assert(a.content.length > 0);
    assertEquals(b.content, a.content);
    assertEquals(c.content, a.content);
    assertEquals([a.done, b.done, c.done], [true, true, true]);
    assertEquals(b.usage?.completion_tokens, a.usage?.completion_tokens);
    assertEquals(b.usage?.prompt_tokens, a.usage?.prompt_tokens);
    assertEquals(c.usage, undefined, "no usage chunk for a client that did not ask");
    assertEquals(b.events, a.events, "as many events as the engine's stream");
    assert(!without.text.includes('"usage"'));
    // A whole request is another shape: not answered from the stream's entry.
    assertEquals((await send(h, ask("stream me", { max_tokens: 6 }))).cache, "miss");
    const rows = await usageRows(h);
    assertEquals(rows.filter((r) => r.answerCache === "exact" && r.stream).length, 2);
  });
});

Deno.test("an answer over the per-entry cap is not kept; past the total size the least recently used goes first", async () => {
  await withHarness(async (h) => {
    await cacheOn(h);
    await send(h, ask("a", { max_tokens: 64 }));
    assertEquals((await send(h, ask("a", { max_tokens: 64 }))).cache, "miss", "too big to keep");
    const one = await send(h, ask("b"));
    const size = h.deps.answerCache.bytes;
    assert(size > 0 && size < 2048, `one small answer: ${size}`);
    assertEquals(one.cache, "miss");
  }, { cache: { maxEntryBytes: 800 } });

  await withHarness(async (h) => {
    await cacheOn(h);
    for (const q of ["q1", "q2", "q3"]) await send(h, ask(q));
    assertEquals(h.deps.answerCache.size, 2, "room for two");
    assertEquals((await send(h, ask("q1"))).cache, "miss", "the oldest went");
    assertEquals((await send(h, ask("q3"))).cache, "hit");
  }, { cache: { maxBytes: 1900 } });
});

Deno.test("a request whose values a guardrail redacted and will restore is never served from or kept in the cache", async () => {
  const e: EchoEngine = startEchoEngine();
  try {
    await withHarness(async (h) => {
      h.deps.replicas.remove("r1");
      addReplica(h, "echo", e.url);
      await cacheOn(h);
      const res = await h.admin("PUT", "guard/policies/pii", {
        scope: { kind: "global", id: "global" },
        apply_to: "both",
        restore: true,
        rules: [{ name: "email", kind: "pii", action: "redact", types: ["email"] }],
      });
      assertEquals(res.status, 201, await res.text());
      const mine = ask("write to ann@example.com please");
      assertEquals((await send(h, mine)).cache, null);
      assertEquals((await send(h, mine)).cache, null);
      // Nothing redacted: kept and given as any answer.
      assertEquals((await send(h, ask("no address here"))).cache, "miss");
      assertEquals((await send(h, ask("no address here"))).cache, "hit");
    });
  } finally {
    await e.close();
  }
});

Deno.test("similar questions: with cache_similar and router.cache.embedding_model, a question sharing most words reuses the answer; another does not", async () => {
  await withHarness(async (h) => {
    await h.deps.catalog.upsert({ name: "embed", engine: "sim", source: "" });
    await addSimReplica(h, "e1", { model: "embed", embeddingMode: "lexical", embeddingDims: 256 });
    await cacheOn(h, { cache_similar: 0.5 });
    const first = await send(h, ask("How do I rotate an API key for my project?"));
    assertEquals(first.cache, "miss");
    const res = await h.v1("/chat/completions", ask("Rotate the project API key from the portal"));
    assertEquals(res.headers.get("x-llmgw-cache"), "hit");
    const similarity = Number(res.headers.get("x-llmgw-cache-similarity"));
    assert(similarity >= 0.5 && similarity < 1, `similarity ${similarity}`);
    assertEquals(await res.text(), first.text);
    const far = await send(h, ask("Which GPU cards does the cluster have free?"));
    assertEquals(far.cache, "miss");
    // The same question in another conversation (a system message before it) is not near.
    const other = ask("Rotate the project API key from the portal");
    other.messages.unshift({ role: "system", content: "You answer in French." });
    assertEquals((await send(h, other)).cache, "miss");
    const rows = await usageRows(h);
    assertEquals(rows.filter((r) => r.answerCache === "similar").length, 1);
    // The gateway embedded each question on its own account, charged to no tenant.
    const own = rows.filter((r) => r.keyId === "llmgw-gateway");
    assertEquals(own.length, 4);
    assert(own.every((r) => r.model === "embed" && r.status === 200));
    // Metrics: hits by kind, misses, and what is kept per model.
    const text = await h.deps.metrics.registry.render();
    assert(text.includes('llmgw_answer_cache_hits_total{model="demo",kind="similar"} 1'), text);
    assert(text.includes('llmgw_answer_cache_misses_total{model="demo"} 3'));
    assert(text.includes('llmgw_answer_cache_entries{model="demo"} 3'));
  }, { cache: { embeddingModel: "embed" } });
});
