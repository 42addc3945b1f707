import { deepStrictEqual as assertEquals, ok as assert, rejects } from "node:assert/strict";
import OpenAI from "openai";
import { withSimEngine } from "./with_sim_engine.ts";

const chat = { messages: [{ role: "user" as const, content: "hi" }], max_tokens: 2 };

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
  });
}

Deno.test("with a key set, requests without it get 401 and /health stays open", async () => {
  await withSimEngine({ apiKey: "sekrit", tokensPerSecond: 5000 }, async ({ url, openai }) => {
    const none = await post(`${url}/v1/chat/completions`, JSON.stringify(chat));
    assertEquals(none.status, 401);
    const body = await none.json();
    assertEquals(body.error.type, "authentication_error");
    assert("param" in body.error && "code" in body.error);
    const wrong = await post(`${url}/v1/chat/completions`, JSON.stringify(chat), {
      authorization: "Bearer nope",
    });
    assertEquals(wrong.status, 401);
    await wrong.body?.cancel();
    const metrics = await fetch(`${url}/metrics`);
    assertEquals(metrics.status, 401);
    await metrics.body?.cancel();
    const health = await fetch(`${url}/health`);
    assertEquals([health.status, await health.json()], [200, { status: "ok" }]);
    // The right key works through the SDK; a wrong one surfaces as the SDK's 401 error.
    const ok = await openai.chat.completions.create({ model: "m", ...chat });
    assertEquals(ok.object, "chat.completion");
    const bad = new OpenAI({ baseURL: `${url}/v1`, apiKey: "wrong", maxRetries: 0 });
    await rejects(bad.models.list(), OpenAI.AuthenticationError);
  });
});

Deno.test("a body that is not JSON gets 400 in OpenAI's error shape", async () => {
  await withSimEngine({}, async ({ url }) => {
    for (const path of ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"]) {
      const res = await post(`${url}${path}`, "{not json");
      assertEquals(res.status, 400);
      const { error } = await res.json();
      assertEquals(error.type, "invalid_request_error");
      assertEquals(error.param, null);
      assertEquals(error.code, null);
    }
  });
});

Deno.test("missing messages, prompt or input get 400 naming the parameter", async () => {
  await withSimEngine({}, async ({ url }) => {
    const cases = [
      ["/v1/chat/completions", "messages"],
      ["/v1/completions", "prompt"],
      ["/v1/embeddings", "input"],
    ] as const;
    for (const [path, param] of cases) {
      const res = await post(`${url}${path}`, JSON.stringify({ model: "m" }));
      assertEquals(res.status, 400);
      const { error } = await res.json();
      assertEquals(error.param, param);
      assert(error.message.includes(param));
    }
    const wrongType = await post(`${url}/v1/chat/completions`, JSON.stringify({ messages: "hi" }));
    assertEquals(wrongType.status, 400);
    assertEquals((await wrongType.json()).error.param, "messages");
  });
});

Deno.test("a prompt longer than a slot's context gets 400 context_length_exceeded", async () => {
  await withSimEngine({ contextPerSlot: 16 }, async ({ url }) => {
    const long = { messages: [{ role: "user", content: "word ".repeat(40) }] };
    const res = await post(`${url}/v1/chat/completions`, JSON.stringify(long));
    assertEquals(res.status, 400);
    assertEquals((await res.json()).error.code, "context_length_exceeded");
  });
});

Deno.test("unknown paths get 404 in OpenAI's error shape", async () => {
  await withSimEngine({}, async ({ url }) => {
    const res = await fetch(`${url}/v1/nothing`);
    assertEquals(res.status, 404);
    assert((await res.json()).error.message.includes("/v1/nothing"));
  });
});

Deno.test("metrics and slots use llama-server's names and shapes", async () => {
  await withSimEngine({ slots: 2, tokensPerSecond: 5000 }, async ({ url, openai, metrics }) => {
    await openai.chat.completions.create({ model: "m", ...chat });
    const text = await (await fetch(`${url}/metrics`)).text();
    for (
      const name of [
        "prompt_tokens_total",
        "tokens_predicted_total",
        "prompt_tokens_seconds",
        "predicted_tokens_seconds",
        "kv_cache_usage_ratio",
        "kv_cache_tokens",
        "requests_processing",
        "requests_deferred",
        "n_decode_total",
      ]
    ) {
      assert(text.includes(`# HELP llamacpp:${name} `), name);
      assert(/# TYPE llamacpp:\S+ (counter|gauge)/.test(text));
    }
    const m = await metrics();
    assertEquals(m.get("llamacpp:tokens_predicted_total"), 2);
    assertEquals(m.get("llamacpp:prompt_tokens_total"), 8);
    assert(m.get("llamacpp:n_decode_total")! >= 1);
    const slots = await (await fetch(`${url}/slots`)).json();
    assertEquals(slots.length, 2);
    assertEquals(Object.keys(slots[0]).slice(0, 3), ["id", "id_task", "n_ctx"]);
    assertEquals(slots[1].is_processing, false);
  });
});
