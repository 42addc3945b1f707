import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { estimatePromptTokens } from "../accounting/demand.ts";
import { addReplica, chat, fakeServer, usageRows } from "../../tests/helpers/routing.ts";

Deno.test("a stalled engine stream is cut after the idle timeout with an error event and no [DONE]", async () => {
  const h = await startHarness({ routing: { streamIdleTimeoutMs: 150 } });
  let upstreamCancelled = false;
  const stalling = fakeServer(() =>
    new Response(
      new ReadableStream({
        start(ctrl) {
          ctrl.enqueue(
            new TextEncoder().encode('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'),
          );
        },
        cancel() {
          upstreamCancelled = true;
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "stuck", stalling.url);
    const started = performance.now();
    const res = await h.v1("/chat/completions", chat("hi", { stream: true }));
    assertEquals(res.status, 200);
    const text = await res.text();
    const waited = performance.now() - started;
    assert(waited >= 140 && waited < 2000, `cut after ${waited} ms`);
    const events = text.split("\n\n").filter(Boolean);
    assert(events[0]!.includes("Hel"));
    // Ended like a dead engine's answer: a client that watches for [DONE] sees it is cut.
    const error = JSON.parse(events.at(-1)!.slice("data: ".length));
    assertEquals(error.error.code, "engine_stalled");
    assert(!events.includes("data: [DONE]"), "a cut answer never passes for a whole one");
    const [row] = await usageRows(h);
    assertEquals(row?.status, 504);
    // The engine never said how long the prompt was: the gateway's estimate, marked as one.
    assertEquals([row?.promptTokens, row?.promptEstimated], [
      estimatePromptTokens(chat("hi")),
      true,
    ]);
    assertEquals(h.deps.replicas.get("stuck")?.inFlight, 0);
    // The engine's server hears of the abort when the connection closes: on a loaded machine,
    // a moment later.
    for (let i = 0; i < 100 && !upstreamCancelled; i++) await new Promise((r) => setTimeout(r, 20));
    assert(upstreamCancelled, "the engine request is aborted");
  } finally {
    await stalling.close();
    await h.close();
  }
});

Deno.test("a client that stops reading for longer than the idle timeout is not taken for a stalled engine", async () => {
  const h = await startHarness({ routing: { streamIdleTimeoutMs: 200 } });
  try {
    // A real engine that keeps sending; the client reads one chunk, then nothing for 700 ms.
    const res = await h.v1("/chat/completions", chat("hi", { stream: true, max_tokens: 40 }));
    assertEquals(res.status, 200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? "";
    await new Promise((r) => setTimeout(r, 700));
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    assert(!text.includes("engine_stalled"), "the engine was blamed for the client's pause");
    assert(text.endsWith("data: [DONE]\n\n"), "the answer ran to its end");
    const [row] = await usageRows(h);
    assertEquals(row?.status, 200);
    assertEquals(row?.completionTokens, 40);
    assertEquals(h.deps.replicas.get("r1")?.breaker.state(), "closed");
  } finally {
    await h.close();
  }
});
