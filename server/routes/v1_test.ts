import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, engineKey, fakeServer } from "../../tests/helpers/routing.ts";
import { usage } from "../../db/schema.ts";

Deno.test("GET /v1/models lists descriptions only where one was written", async () => {
  const h = await startHarness();
  try {
    const res = await h.v1("/models");
    assertEquals(res.status, 200);
    const body = await res.json();
    const byId = Object.fromEntries(body.data.map((m: { id: string }) => [m.id, m]));
    assertEquals(byId.demo.description, "Simulated");
    assertEquals("description" in byId.cold, false);
    assertEquals((await (await h.v1("/models/demo")).json()).id, "demo");
    assertEquals((await h.v1("/models/nope")).status, 404);
  } finally {
    await h.close();
  }
});

Deno.test("/v1 without a key or with a wrong one is 401 in OpenAI's shape", async () => {
  const h = await startHarness();
  try {
    const none = await h.app.request("/v1/models");
    assertEquals(none.status, 401);
    assertEquals((await none.json()).error.code, "missing_api_key");
    const wrong = await h.v1("/models", undefined, {
      headers: { authorization: "Bearer sk-llmgw-nope" },
    });
    assertEquals(wrong.status, 401);
    const body = await wrong.json();
    assertEquals(body.error.type, "authentication_error");
    assertEquals(body.error.code, "invalid_api_key");
  } finally {
    await h.close();
  }
});

Deno.test("a revoked key stops working at once, even while cached", async () => {
  const h = await startHarness();
  try {
    const created = await h.deps.keys.create({ name: "short-lived" });
    const ok = await h.v1("/models", undefined, {
      headers: { authorization: `Bearer ${created.key}` },
    });
    assertEquals(ok.status, 200);
    await h.deps.keys.revoke(created.id);
    const after = await h.v1("/models", undefined, {
      headers: { authorization: `Bearer ${created.key}` },
    });
    assertEquals(after.status, 401);
  } finally {
    await h.close();
  }
});

Deno.test("an expired key is refused when its time comes", async () => {
  const h = await startHarness();
  try {
    const created = await h.deps.keys.create({ name: "expiring", expiresAt: h.clock.now() + 1000 });
    const auth = { headers: { authorization: `Bearer ${created.key}` } };
    assertEquals((await h.v1("/models", undefined, auth)).status, 200);
    h.clock.advance(1001);
    assertEquals((await h.v1("/models", undefined, auth)).status, 401);
  } finally {
    await h.close();
  }
});

Deno.test("bad bodies get 400 or 413 saying what is wrong", async () => {
  const h = await startHarness({ maxBodyBytes: 2048 });
  try {
    const cases: [unknown, number, string, RegExp][] = [
      ["{not json", 400, "invalid_json", /not valid JSON/],
      ["[1,2]", 400, "invalid_json", /must be a JSON object/],
      ["", 400, "invalid_json", /empty/],
      [{ messages: [] }, 400, "invalid_request", /'model' is required/],
      [{ model: 42, messages: [] }, 400, "invalid_request", /non-empty string/],
      [
        { model: "demo", messages: [{ role: "user", content: "x".repeat(4096) }] },
        413,
        "body_too_large",
        /2048 bytes/,
      ],
      [{ model: "missing", messages: [] }, 404, "model_not_found", /'missing' does not exist/],
      [{ model: "cold", messages: [] }, 503, "model_unavailable", /no replica/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await h.v1("/chat/completions", body);
      const err = (await res.json()).error;
      assertEquals([res.status, err.code], [status, code], JSON.stringify(body).slice(0, 60));
      assertMatch(err.message, message);
    }
  } finally {
    await h.close();
  }
});

Deno.test("fields the gateway does not know pass through to the engine untouched", async () => {
  const h = await startHarness();
  // Between the gateway and its engine: records the bytes that arrive, then lets the engine answer.
  const received: string[] = [];
  const tap = fakeServer(async (req) => {
    const text = await req.text();
    received.push(text);
    return await fetch(new URL(new URL(req.url).pathname, h.engine.url), {
      method: req.method,
      headers: { authorization: `Bearer ${engineKey}`, "content-type": "application/json" },
      body: text,
    });
  });
  try {
    addReplica(h, "r1", tap.url, { apiKey: engineKey });
    // Spacing, key order and escapes as a client might send them, and a field only the engine knows.
    const sent =
      '{ "model":"demo", "max_tokens":3,\n "some_engine_specific_field": {"nested": true,' +
      ' "list": [1, 2.50, "\\u00e9"]},\n "messages":[{"role":"user","content":"hello"}] }';
    const res = await h.v1("/chat/completions", sent);
    assertEquals(res.status, 200);
    const body = await res.json();
    assertEquals(body.usage.completion_tokens, 3);
    assertEquals(received, [sent], "the engine got the client's bytes, unchanged");
  } finally {
    await tap.close();
    await h.close();
  }
});

Deno.test("a streamed answer withholds the usage chunk from a client that did not ask, and records usage", async () => {
  const h = await startHarness();
  try {
    const res = await h.v1("/chat/completions", {
      model: "demo",
      messages: [{ role: "user", content: "hello" }],
      max_tokens: 4,
      stream: true,
    });
    const text = await res.text();
    assert(text.trimEnd().endsWith("data: [DONE]"));
    assertEquals(text.includes('"usage"'), false);
    await h.usage.flush();
    const [row] = await h.store.db.select().from(usage);
    assertEquals(row?.completionTokens, 4);
    assertEquals(row?.status, 200);
    assertEquals(row?.stream, true);
    assert((row?.promptTokens ?? 0) > 0);
  } finally {
    await h.close();
  }
});

Deno.test("an engine that cannot be reached is a 502 engine_error, and the row says so", async () => {
  const h = await startHarness();
  try {
    h.deps.replicas.upsert({
      id: "r1",
      model: "demo",
      baseUrl: "http://127.0.0.1:9",
      apiKey: "x",
      state: "ready",
    });
    const res = await h.v1("/chat/completions", {
      model: "demo",
      messages: [{ role: "user", content: "hi" }],
    });
    assertEquals(res.status, 502);
    assertEquals((await res.json()).error.code, "engine_error");
    await h.usage.flush();
    assertEquals((await h.store.db.select().from(usage))[0]?.status, 502);
    assertEquals(h.deps.replicas.pick("demo")?.inFlight, 0);
  } finally {
    await h.close();
  }
});

Deno.test("health, readiness and leadership probes answer", async () => {
  const h = await startHarness();
  try {
    assertEquals((await h.app.request("/health")).status, 200);
    assertEquals((await h.app.request("/ready")).status, 200);
    assertEquals((await h.app.request("/leader")).status, 200);
    h.deps.replicas.remove("r1");
    assertEquals((await h.app.request("/ready")).status, 503);
    const nothing = await h.app.request("/nothing/here");
    assertEquals(nothing.status, 404);
    assertEquals((await nothing.json()).error.code, "not_found");
  } finally {
    await h.close();
  }
});
