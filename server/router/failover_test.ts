import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import {
  addHarnessReplica,
  addReplica,
  addSimReplica,
  chat,
  engineKey,
  fakeServer,
  usageRows,
} from "../../tests/helpers/routing.ts";

import { estimatePromptTokens } from "../accounting/demand.ts";

const batch = { headers: { "x-llmgw-profile": "batch" } };

/** An engine that sends its headers, then `sent` if given, then dies (the connection breaks). */
function dyingEngine(contentType: string, sent?: string) {
  return fakeServer(() =>
    new Response(
      new ReadableStream({
        start(ctrl) {
          if (sent) ctrl.enqueue(new TextEncoder().encode(sent));
          setTimeout(() => ctrl.error(new Error("engine died")), 30);
        },
      }),
      { headers: { "content-type": contentType } },
    )
  );
}

Deno.test("a failing replica is retried elsewhere before the first byte; its breaker opens, then half-opens for one probe", async () => {
  const h = await startHarness({ breakerFailures: 2, breakerCooldownMs: 10_000 });
  let failing = true;
  const bad = fakeServer(() =>
    failing
      ? Response.json({ error: { message: "boom" } }, { status: 500 })
      : Response.json({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } })
  );
  const good = await addSimReplica(h, "good");
  try {
    h.deps.replicas.remove("r1");
    // Inserted first: with equal queues the batch profile tries it first.
    h.deps.replicas.remove("good");
    addReplica(h, "bad", bad.url);
    addReplica(h, "good", good.url, { apiKey: engineKey });
    for (let i = 0; i < 3; i++) {
      const res = await h.v1("/chat/completions", chat("hi"), batch);
      assertEquals(res.status, 200);
      await res.body?.cancel();
    }
    // Two failures opened the breaker: the third request went straight to the good replica.
    assertEquals(bad.hits(), 2);
    assertEquals(h.deps.replicas.get("bad")?.breaker.state(), "open");
    const rows = await usageRows(h);
    assert(rows.every((r) => r.status === 200 && r.replicaId === "good"));

    h.clock.advance(10_000);
    assertEquals(h.deps.replicas.get("bad")?.breaker.state(), "half-open");
    const probe = await h.v1("/chat/completions", chat("hi"), batch);
    assertEquals(probe.status, 200);
    await probe.body?.cancel();
    assertEquals(bad.hits(), 3);
    assertEquals(h.deps.replicas.get("bad")?.breaker.state(), "open");

    h.clock.advance(10_000);
    failing = false;
    const healed = await h.v1("/chat/completions", chat("hi"), batch);
    assertEquals(healed.status, 200);
    await healed.body?.cancel();
    assertEquals(h.deps.replicas.get("bad")?.breaker.state(), "closed");
    assertEquals(h.deps.replicas.get("bad")?.inFlight, 0);
    assertEquals(h.deps.replicas.get("good")?.inFlight, 0);
  } finally {
    await bad.close();
    await good.close();
    await h.close();
  }
});

Deno.test("a replica on a closed port is retried on another; an error after the first byte is not", async () => {
  const h = await startHarness();
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "dead", "http://127.0.0.1:9");
    addHarnessReplica(h);
    const res = await h.v1("/chat/completions", chat("hi", { stream: true }), batch);
    assertEquals(res.status, 200);
    assert((await res.text()).includes("[DONE]"));
    const [row] = await usageRows(h);
    assertEquals(row?.replicaId, "r1");
    assertEquals(row?.servedModel, "demo");

    // An engine that breaks mid-stream: the client already has bytes, so nothing is retried.
    const broken = dyingEngine(
      "text/event-stream",
      'data: {"choices":[{"delta":{"content":"a"}}]}\n\n',
    );
    try {
      h.deps.replicas.remove("dead");
      h.deps.replicas.remove("r1");
      addReplica(h, "broken", broken.url);
      addHarnessReplica(h);
      const cut = await h.v1("/chat/completions", chat("hi", { stream: true }), batch);
      assertEquals(cut.status, 200);
      // It ends with the engine's failure in OpenAI's error shape, and no [DONE].
      const events = (await cut.text()).split("\n\n").filter(Boolean);
      assert(events[0]!.includes('"content":"a"'));
      const last = JSON.parse(events.at(-1)!.slice("data: ".length));
      assertEquals(last.error.code, "engine_error");
      assertEquals(last.error.type, "server_error");
      assert(!events.includes("data: [DONE]"));
      const rows = await usageRows(h);
      assertEquals(rows.length, 2);
      const brokenRow = rows.find((r) => r.replicaId === "broken");
      assertEquals(brokenRow?.status, 502);
      // No usage came before the break: the prompt is the gateway's estimate, marked as one.
      assertEquals(brokenRow?.promptTokens, estimatePromptTokens(chat("hi", { stream: true })));
      assertEquals(brokenRow?.promptEstimated, true);
      assertEquals(broken.hits(), 1);
    } finally {
      await broken.close();
    }
  } finally {
    await h.close();
  }
});

Deno.test("a broken stream's usage row keeps the prompt tokens the engine reported before it broke", async () => {
  const h = await startHarness();
  // An engine that reports usage on every chunk (vLLM's continuous usage stats), then dies.
  const reporting = dyingEngine(
    "text/event-stream",
    'data: {"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":17,"completion_tokens":1}}\n\n',
  );
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "reporting", reporting.url);
    const cut = await h.v1("/chat/completions", chat("hi", { stream: true }), batch);
    assertEquals(cut.status, 200);
    assert((await cut.text()).includes("engine_error"));
    const [row] = await usageRows(h);
    assertEquals(
      [row?.status, row?.promptTokens, row?.completionTokens, row?.promptEstimated],
      [502, 17, 1, false],
    );
  } finally {
    await reporting.close();
    await h.close();
  }
});

Deno.test("a stream whose engine dies before its first token is retried on another replica", async () => {
  const h = await startHarness();
  // Headers at once, as engines send them, then the connection dies during the "prefill".
  const dying = dyingEngine("text/event-stream");
  // Headers, then the stream ends with nothing in it.
  const empty = fakeServer(() =>
    new Response("", { headers: { "content-type": "text/event-stream" } })
  );
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "dying", dying.url);
    const res = await h.v1("/chat/completions", chat("hi", { stream: true }), batch);
    // Only one replica: the client hears the engine failed, in OpenAI's shape.
    assertEquals(res.status, 502);
    assertEquals((await res.json()).error.code, "engine_error");

    addReplica(h, "empty", empty.url);
    addHarnessReplica(h);
    for (let i = 0; i < 4; i++) {
      const ok = await h.v1("/chat/completions", chat("hi", { stream: true }), batch);
      assertEquals(ok.status, 200);
      assert((await ok.text()).endsWith("data: [DONE]\n\n"), "a whole answer, from r1");
    }
    const rows = await usageRows(h);
    assertEquals(rows.slice(1).map((r) => [r.status, r.replicaId]), [
      [200, "r1"],
      [200, "r1"],
      [200, "r1"],
      [200, "r1"],
    ]);
    assert(dying.hits() + empty.hits() >= 2, "the broken replicas were tried first");
  } finally {
    await dying.close();
    await empty.close();
    await h.close();
  }
});

Deno.test("an answer (not streamed) the engine breaks off mid-body is retried; alone, it is a 502", async () => {
  const h = await startHarness();
  // Headers and half the JSON, then the connection dies.
  const halfway = dyingEngine("application/json", '{"id":"x","choices":[{"mess');
  try {
    h.deps.replicas.remove("r1");
    addReplica(h, "halfway", halfway.url);
    const alone = await h.v1("/chat/completions", chat("hi"), batch);
    assertEquals(alone.status, 502);
    assertEquals((await alone.json()).error.code, "engine_error");
    const [row] = await usageRows(h);
    assertEquals([row?.status, row?.replicaId], [502, null]);

    addHarnessReplica(h);
    for (let i = 0; i < 4; i++) {
      const ok = await h.v1("/chat/completions", chat("hi"), batch);
      assertEquals(ok.status, 200);
      assert((await ok.json()).choices[0].message.content.length > 0);
    }
    assert(halfway.hits() >= 2, "the broken replica was tried first");
  } finally {
    await halfway.close();
    await h.close();
  }
});

Deno.test("a fallback model answers when the model's replicas cannot, and usage records it", async () => {
  const h = await startHarness();
  try {
    await h.deps.catalog.upsert({
      name: "big",
      engine: "sim",
      source: "",
      fallbacks: ["demo"],
      pricePrompt: 1_000_000,
    });
    await h.deps.catalog.upsert({
      name: "demo",
      engine: "sim",
      source: "",
      pricePrompt: 1,
      priceCompletion: 1,
    });
    // No replica at all.
    const none = await h.v1("/chat/completions", { ...chat("hi"), model: "big" });
    assertEquals(none.status, 200);
    assertEquals(none.headers.get("x-llmgw-served-model"), "demo");
    assertEquals((await none.json()).model, "demo");
    // A replica that cannot be reached.
    addReplica(h, "big-1", "http://127.0.0.1:9", { model: "big" });
    const down = await h.v1("/chat/completions", { ...chat("hi"), model: "big" });
    assertEquals(down.status, 200);
    assertEquals(down.headers.get("x-llmgw-served-model"), "demo");
    await down.body?.cancel();
    const rows = await usageRows(h);
    assertEquals(rows.length, 2);
    for (const r of rows) {
      assertEquals(r.model, "big");
      assertEquals(r.servedModel, "demo");
      // Priced at demo's 1 micro per 1k tokens, rounded up: 1 + 1.
      assertEquals(r.costMicros, 2);
    }
  } finally {
    await h.close();
  }
});

Deno.test("a model with no replica and no fallback is 503 model_unavailable", async () => {
  const h = await startHarness();
  try {
    const res = await h.v1("/chat/completions", { ...chat("hi"), model: "cold" });
    assertEquals(res.status, 503);
    assertEquals((await res.json()).error.code, "model_unavailable");
  } finally {
    await h.close();
  }
});
