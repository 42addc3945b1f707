import { assert, assertEquals } from "../tests/assert.ts";
import { startSimEngine } from "../agent/sim_engine/serve.ts";
import {
  chatUrl,
  errorCount,
  type LoadOptions,
  type LoadResult,
  mergeResults,
  promptOf,
  runLoad,
  withoutSamples,
} from "./load.ts";

const base = {
  model: "demo",
  concurrency: 4,
  stream: false,
  maxTokens: 8,
  promptTokens: 16,
  timeoutMs: 5_000,
  streamUsage: false,
} satisfies Partial<LoadOptions>;

Deno.test("base URLs: the chat path is added, and a bare host gets /v1", () => {
  assertEquals(chatUrl("http://h:1/v1"), "http://h:1/v1/chat/completions");
  assertEquals(chatUrl("http://h:1/v1/"), "http://h:1/v1/chat/completions");
  assertEquals(chatUrl("http://h:1"), "http://h:1/v1/chat/completions");
  assertEquals(
    chatUrl("https://api.example.com/openai/v1"),
    "https://api.example.com/openai/v1/chat/completions",
  );
  assertEquals(promptOf(3), "the quick brown");
});

Deno.test("a request count is sent exactly, with latencies and tokens from usage", async () => {
  const engine = await startSimEngine({ tokensPerSecond: 100_000, slots: 4, apiKey: "k1" });
  try {
    const r = await runLoad({ ...base, url: `${engine.url}/v1`, key: "k1", requests: 23 });
    assertEquals([r.requests, r.ok, errorCount(r)], [23, 23, 0]);
    assertEquals(r.tokens, 23 * 8);
    assertEquals(r.tokensFrom, "usage");
    assertEquals(r.latencyMs?.count, 23);
    assertEquals(r.ttftMs, null);
    assert(r.requestsPerSecond > 0);
  } finally {
    await engine.close();
  }
});

Deno.test("streams: time to first token, content events, and usage when asked for", async () => {
  const engine = await startSimEngine({ tokensPerSecond: 2_000, slots: 4 });
  try {
    const url = `${engine.url}/v1`;
    const events = await runLoad({ ...base, url, stream: true, requests: 8, maxTokens: 20 });
    assertEquals([events.ok, errorCount(events)], [8, 0]);
    assertEquals(events.tokensFrom, "events");
    assert(events.tokens >= 8 && events.tokens <= 8 * 20, `tokens ${events.tokens}`);
    assertEquals(events.ttftMs?.count, 8);
    assert(events.ttftMs!.p50 <= events.latencyMs!.p50);
    const usage = await runLoad({
      ...base,
      url,
      stream: true,
      streamUsage: true,
      requests: 8,
      maxTokens: 20,
    });
    assertEquals([usage.ok, usage.tokens, usage.tokensFrom], [8, 160, "usage"]);
  } finally {
    await engine.close();
  }
});

Deno.test("errors by kind: HTTP status, connect, timeout, stream cut", async () => {
  const engine = await startSimEngine({ tokensPerSecond: 20, slots: 2, apiKey: "right" });
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  // A server that streams two events and hangs up without [DONE].
  const enc = new TextEncoder();
  const cutter = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(enc.encode('data: {"choices":[{"delta":{"content":"a"}}]}\n\n'));
            c.enqueue(enc.encode('data: {"choices":[{"delta":{"content":"b"}}]}\n\n'));
            c.close();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  );
  try {
    const url = `${engine.url}/v1`;
    const wrongKey = await runLoad({ ...base, url, key: "wrong", requests: 3 });
    assertEquals(wrongKey.errors, { http_401: 3 });
    assertEquals(wrongKey.ok, 0);
    assert(!JSON.stringify(wrongKey).includes("wrong"), "the key leaked into the result");

    // A server that echoes the key in its error text does not get it into the report.
    const echo = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => new Response(`bad key ${req.headers.get("authorization")}`, { status: 401 }),
    );
    try {
      const echoed = await runLoad({
        ...base,
        url: `http://127.0.0.1:${echo.addr.port}/v1`,
        key: "sk-echoed-secret",
        requests: 1,
      });
      assertEquals(echoed.errorSamples, { http_401: "401 bad key Bearer [key]" });
    } finally {
      await echo.shutdown();
    }

    const dead = await runLoad({ ...base, url: `http://127.0.0.1:${deadPort}/v1`, requests: 2 });
    assertEquals(dead.errors, { connect: 2 });

    const slow = await runLoad({
      ...base,
      url,
      key: "right",
      stream: true,
      maxTokens: 200,
      concurrency: 2,
      requests: 2,
      timeoutMs: 300,
    });
    assertEquals(slow.errors, { timeout: 2 });

    const cut = await runLoad({
      ...base,
      url: `http://127.0.0.1:${cutter.addr.port}/v1`,
      stream: true,
      requests: 2,
    });
    assertEquals(cut.errors, { stream_cut: 2 });
    assertEquals(cut.ok, 0);
  } finally {
    await cutter.shutdown();
    await engine.close();
  }
});

Deno.test("a timed run stops by itself: no new request after the duration, open ones cut at the timeout", async () => {
  // 64 tokens at 20 tokens/s take over 3 s; the run must end at about duration + timeout.
  const engine = await startSimEngine({ tokensPerSecond: 20, slots: 8 });
  try {
    const t0 = performance.now();
    const r = await runLoad({
      ...base,
      url: `${engine.url}/v1`,
      stream: true,
      maxTokens: 64,
      durationMs: 200,
      timeoutMs: 400,
    });
    const took = performance.now() - t0;
    assert(took < 1_500, `took ${took} ms`);
    assertEquals(r.requests, 4);
    assertEquals(r.errors, { timeout: 4 });
  } finally {
    await engine.close();
  }
});

Deno.test("merged rounds add counts and take percentiles over all samples", () => {
  const run = (
    latencies: number[],
    errors: LoadResult["errors"],
    elapsedS: number,
  ): LoadResult => ({
    concurrency: 2,
    stream: true,
    maxTokens: 4,
    promptTokens: 8,
    elapsedS,
    requests: latencies.length + Object.values(errors).reduce<number>((a, b) => a + (b ?? 0), 0),
    ok: latencies.length,
    errors,
    errorSamples: Object.fromEntries(Object.keys(errors).map((k) => [k, `why ${k}`])),
    requestsPerSecond: latencies.length / elapsedS,
    tokensPerSecond: (latencies.length * 4) / elapsedS,
    tokens: latencies.length * 4,
    tokensFrom: "events",
    ttftMs: null,
    latencyMs: null,
    samples: { latencyMs: latencies, ttftMs: latencies.map((v) => v / 10) },
  });
  const m = mergeResults([
    run([1, 2, 3], { timeout: 1 }, 1),
    run([100, 4], { timeout: 2, http_500: 1 }, 3),
  ]);
  assertEquals([m.requests, m.ok, m.elapsedS, m.tokens], [9, 5, 4, 20]);
  assertEquals(m.errors, { timeout: 3, http_500: 1 });
  assertEquals(m.errorSamples, { timeout: "why timeout", http_500: "why http_500" });
  assertEquals([m.latencyMs?.p50, m.latencyMs?.max, m.ttftMs?.p50], [3, 100, 0.3]);
  assertEquals(m.requestsPerSecond, 5 / 4);
  assertEquals("samples" in withoutSamples(m), false);
});
