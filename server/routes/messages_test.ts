import { assert, assertEquals, assertMatch } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { usage } from "../../db/schema.ts";

const hi = [{ role: "user", content: "hi" }];

Deno.test("an engine's own error on /v1/messages comes back in Anthropic's shape", async () => {
  const h = await startHarness();
  try {
    // Longer than the sim engine's context of 4096 tokens: the engine, not llmgw, refuses it.
    const long = "word ".repeat(5000);
    const res = await h.v1("/messages", {
      model: "demo",
      max_tokens: 4,
      messages: [{ role: "user", content: long }],
    });
    assertEquals(res.status, 400);
    const body = await res.json();
    assertEquals(body.type, "error");
    assertEquals(body.error.type, "invalid_request_error");
    assertMatch(body.error.message, /context/);
    assertEquals(body.request_id, res.headers.get("x-request-id"));
  } finally {
    await h.close();
  }
});

Deno.test("unknown paths under /v1/messages and a missing key answer in Anthropic's shape", async () => {
  const h = await startHarness();
  try {
    const missing = await h.v1("/messages/batches", { model: "demo", messages: hi });
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).error.type, "not_found_error");
    const noKey = await h.app.request("/v1/messages", { method: "POST", body: "{}" });
    assertEquals(noKey.status, 401);
    assertEquals((await noKey.json()).error.type, "authentication_error");
    const tooBig = await h.v1("/messages", { model: "demo", messages: hi }, {
      headers: { "content-length": String(10 * 1024 * 1024) },
    });
    assertEquals(tooBig.status, 413);
    assertEquals((await tooBig.json()).error.type, "request_too_large");
  } finally {
    await h.close();
  }
});

Deno.test("a streamed /v1/messages answer read to its end is recorded as whole, with usage", async () => {
  const h = await startHarness();
  try {
    const res = await h.v1("/messages", {
      model: "demo",
      max_tokens: 7,
      stream: true,
      messages: hi,
    });
    assertEquals(res.headers.get("content-type"), "text/event-stream");
    const text = await res.text();
    assert(text.includes("event: message_stop"));
    assertMatch(text, /"output_tokens":7/);
    await h.usage.flush();
    const rows = await h.store.db.select().from(usage);
    assertEquals(rows.length, 1);
    assertEquals([rows[0]!.status, rows[0]!.completionTokens, rows[0]!.stream], [200, 7, true]);
    assertEquals(rows[0]!.endpoint, "/messages", "the row names the path the client called");
  } finally {
    await h.close();
  }
});

Deno.test("/v1/messages without max_tokens is refused, as Anthropic refuses it", async () => {
  const h = await startHarness();
  try {
    const res = await h.v1("/messages", { model: "demo", messages: hi });
    assertEquals(res.status, 400);
    const body = await res.json();
    assertEquals(body.error.type, "invalid_request_error");
    assertMatch(body.error.message, /max_tokens/);
  } finally {
    await h.close();
  }
});

Deno.test("/v1/messages/count_tokens estimates input tokens without asking an engine", async () => {
  const h = await startHarness();
  try {
    const count = async (body: unknown) => {
      const res = await h.v1("/messages/count_tokens", body);
      assertEquals(res.status, 200);
      return (await res.json()).input_tokens as number;
    };
    const short = await count({ model: "demo", messages: hi });
    const long = await count({
      model: "demo",
      system: "You are terse.",
      messages: [{ role: "user", content: "word ".repeat(400) }],
    });
    assert(short > 0 && long > short + 400, `${short} then ${long}`);
    const unknown = await h.v1("/messages/count_tokens", { model: "nope", messages: hi });
    assertEquals(unknown.status, 404);
    assertEquals((await unknown.json()).error.type, "not_found_error");
    await h.usage.flush();
    assertEquals((await h.store.db.select().from(usage)).length, 0, "nothing ran, nothing charged");
  } finally {
    await h.close();
  }
});
