import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { SlotPool } from "./slots.ts";
import { withSimEngine } from "./with_sim_engine.ts";

const hello = [{ role: "user" as const, content: "Tell me a story." }];

async function until(what: string, check: () => Promise<boolean>, ms = 1000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

Deno.test("generation is paced at the configured tokens per second", async () => {
  await withSimEngine({ tokensPerSecond: 100 }, async ({ openai }) => {
    const t0 = performance.now();
    const r = await openai.chat.completions.create({ model: "m", messages: hello, max_tokens: 20 });
    const ms = performance.now() - t0;
    assertEquals(r.usage?.completion_tokens, 20);
    assert(ms >= 150 && ms < 1500, `20 tokens at 100/s took ${ms} ms`);
  });
});

Deno.test("high rates are reached by batching tokens, not by sub-millisecond timers", async () => {
  await withSimEngine({ tokensPerSecond: 5000 }, async ({ openai, metrics }) => {
    const t0 = performance.now();
    await openai.chat.completions.create({ model: "m", messages: hello, max_tokens: 1000 });
    const ms = performance.now() - t0;
    assert(ms >= 150 && ms < 1000, `1000 tokens at 5000/s took ${ms} ms`);
    assert((await metrics()).get("llamacpp:n_decode_total")! < 1000);
  });
});

Deno.test("requests beyond the slot count wait, and /metrics shows them deferred", async () => {
  await withSimEngine({ slots: 1, tokensPerSecond: 100 }, async ({ openai, metrics, url }) => {
    const ask = () =>
      openai.chat.completions.create({ model: "m", messages: hello, max_tokens: 30 });
    const all = [ask(), ask(), ask()];
    await until("a full slot and a queue", async () => {
      const m = await metrics();
      return m.get("llamacpp:requests_processing") === 1 &&
        m.get("llamacpp:requests_deferred") === 2;
    });
    const m = await metrics();
    assert(m.get("llamacpp:kv_cache_tokens")! > 0);
    assert(m.get("llamacpp:kv_cache_usage_ratio")! > 0);
    const slots = await (await fetch(`${url}/slots`)).json();
    assertEquals(slots[0].is_processing, true);
    await Promise.all(all);
    const after = await metrics();
    assertEquals(after.get("llamacpp:requests_processing"), 0);
    assertEquals(after.get("llamacpp:requests_deferred"), 0);
    assertEquals(after.get("llamacpp:tokens_predicted_total"), 90);
  });
});

Deno.test("a client that disconnects mid-stream frees its slot at once", async () => {
  await withSimEngine({ slots: 1, tokensPerSecond: 20 }, async ({ url, metrics }) => {
    const abort = new AbortController();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: hello, max_tokens: 200, stream: true }),
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    const busy = await (await fetch(`${url}/slots`)).json();
    assertEquals(busy[0].is_processing, true);
    abort.abort();
    await reader.cancel().catch(() => {});
    await until("the slot to free", async () => {
      const slots = await (await fetch(`${url}/slots`)).json();
      return slots.every((s: { is_processing: boolean }) => !s.is_processing);
    }, 500);
    const m = await metrics();
    assertEquals(m.get("llmgw_sim_requests_cancelled_total"), 1);
    assert(m.get("llamacpp:tokens_predicted_total")! < 20);
  });
});

Deno.test("a client that disconnects while non-streamed or queued frees its place", async () => {
  await withSimEngine({ slots: 1, tokensPerSecond: 20 }, async ({ url, metrics }) => {
    const body = JSON.stringify({ messages: hello, max_tokens: 200 });
    const send = (signal: AbortSignal) =>
      fetch(`${url}/v1/chat/completions`, { method: "POST", body, signal }).catch(() => null);
    const first = new AbortController();
    const second = new AbortController();
    const pending = [send(first.signal), send(second.signal)];
    await until("one running, one queued", async () => {
      const m = await metrics();
      return m.get("llamacpp:requests_processing") === 1 &&
        m.get("llamacpp:requests_deferred") === 1;
    });
    second.abort();
    await until("the queue to empty", async () => {
      return (await metrics()).get("llamacpp:requests_deferred") === 0;
    }, 500);
    first.abort();
    await until("the slot to free", async () => {
      return (await metrics()).get("llamacpp:requests_processing") === 0;
    }, 500);
    await Promise.all(pending);
    assertEquals((await metrics()).get("llmgw_sim_requests_cancelled_total"), 2);
  });
});

Deno.test("the slot pool hands freed slots to waiters first come, first served", async () => {
  const pool = new SlotPool(1, 4096);
  const never = new AbortController().signal;
  const first = await pool.acquire(never);
  const order: string[] = [];
  const a = pool.acquire(never).then((s) => (order.push("a"), s));
  const b = pool.acquire(never).then((s) => (order.push("b"), s));
  assertEquals(pool.deferred, 2);
  pool.release(first);
  pool.release(await a);
  pool.release(await b);
  assertEquals(order, ["a", "b"]);
  assertEquals([pool.processing, pool.deferred], [0, 0]);
});
