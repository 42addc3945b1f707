/**
 * End to end: a real `llmgw up` on a random port, the official OpenAI SDK as the client, the
 * simulated engine behind it. Usage rows are read from the real store after a clean stop.
 */
import OpenAI, { APIError } from "openai";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { openStore } from "../../db/store.ts";
import { usage } from "../../db/schema.ts";

Deno.test({
  name: "llmgw up answers the OpenAI SDK and records usage",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const app = await startAppliance({
      args: ["--engines-sim-tokens-per-second", "500", "--engines-sim-slots", "1"],
    });
    const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: app.key, maxRetries: 0 });
    try {
      await t.step(
        "lists the demo model with a description that says it is simulated",
        async () => {
          const page = await client.models.list();
          const demo = page.data.find((m) => m.id === "demo") as
            | (OpenAI.Model & { description?: string })
            | undefined;
          assert(demo, "demo is listed");
          assertMatch(demo.description ?? "", /[Ss]imulated/);
        },
      );

      let plainText = "";
      await t.step("chat, not streamed", async () => {
        const r = await client.chat.completions.create({
          model: "demo",
          messages: [{ role: "user", content: "Say hello" }],
          max_tokens: 12,
        });
        plainText = r.choices[0]?.message.content ?? "";
        assert(plainText.length > 0);
        assert((r.usage?.completion_tokens ?? 0) > 0);
        assert((r.usage?.prompt_tokens ?? 0) > 0);
      });

      await t.step("chat, streamed, with usage in the last chunk when asked", async () => {
        const stream = await client.chat.completions.create({
          model: "demo",
          messages: [{ role: "user", content: "Say hello" }],
          max_tokens: 12,
          stream: true,
          stream_options: { include_usage: true },
        });
        let text = "";
        let last: OpenAI.ChatCompletionChunk | undefined;
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? "";
          last = chunk;
        }
        assertEquals(text, plainText, "the same request streamed gives the same text");
        assertEquals(last?.choices.length, 0);
        assert((last?.usage?.completion_tokens ?? 0) > 0);
      });

      await t.step("chat, streamed, without usage when not asked", async () => {
        const stream = await client.chat.completions.create({
          model: "demo",
          messages: [{ role: "user", content: "Say hello" }],
          max_tokens: 5,
          stream: true,
        });
        for await (const chunk of stream) assertEquals(chunk.usage ?? undefined, undefined);
      });

      await t.step("completions", async () => {
        const r = await client.completions.create({
          model: "demo",
          prompt: "Once upon a time",
          max_tokens: 8,
        });
        assert((r.choices[0]?.text ?? "").length > 0);
      });

      await t.step("embeddings", async () => {
        const r = await client.embeddings.create({ model: "demo", input: ["one", "two"] });
        assertEquals(r.data.length, 2);
        assert((r.data[0]?.embedding.length ?? 0) > 0);
      });

      await t.step("a wrong key gets 401 in OpenAI's shape", async () => {
        const bad = new OpenAI({
          baseURL: `${app.url}/v1`,
          apiKey: "sk-llmgw-wrong",
          maxRetries: 0,
        });
        const err = await assertRejects(() => bad.models.list(), APIError);
        assertEquals(err.status, 401);
        assertEquals(err.code, "invalid_api_key");
      });

      await t.step("an unknown model gets 404 model_not_found", async () => {
        const err = await assertRejects(
          () =>
            client.chat.completions.create({
              model: "nope",
              messages: [{ role: "user", content: "hi" }],
            }),
          APIError,
        );
        assertEquals(err.status, 404);
        assertEquals(err.code, "model_not_found");
      });

      await t.step("a malformed body gets 400 saying what is wrong", async () => {
        const res = await fetch(`${app.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
          body: '{"model": "demo", "messages": [',
        });
        assertEquals(res.status, 400);
        const body = await res.json();
        assertEquals(body.error.code, "invalid_json");
        assertMatch(body.error.message, /not valid JSON/);
        const noModel = await fetch(`${app.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
          body: JSON.stringify({ messages: [] }),
        });
        assertEquals(noModel.status, 400);
        assertEquals((await noModel.json()).error.param, "model");
      });

      await t.step("a client that disconnects mid-stream cancels the engine request", async () => {
        const ac = new AbortController();
        const res = await fetch(`${app.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
          body: JSON.stringify({
            model: "demo",
            messages: [{ role: "user", content: "long" }],
            max_tokens: 100_000,
            stream: true,
          }),
          signal: ac.signal,
        });
        const reader = res.body!.getReader();
        await reader.read();
        ac.abort();
        await reader.cancel().catch(() => {});
        // The engine has one slot: had the abandoned request kept generating (to the slot's
        // context of 4096 tokens at 500/s), this one would wait for it for about 8 s.
        const started = Date.now();
        await client.chat.completions.create({
          model: "demo",
          messages: [{ role: "user", content: "hi" }],
          max_tokens: 2,
        });
        assert(Date.now() - started < 3_000, "the slot was freed");
      });
    } finally {
      assertEquals(await app.stop(), 0, "llmgw up exits cleanly on Ctrl-C");
    }

    const store = await openStore(`${app.dataDir}/llmgw.db`);
    try {
      const rows = await store.db.select().from(usage);
      assert(rows.length >= 7, `usage rows were written (${rows.length})`);
      const streamed = rows.filter((r) => r.stream && r.status === 200);
      assert(streamed.every((r) => r.completionTokens > 0 && r.ttftMs !== null));
      const cancelled = rows.find((r) => r.status === 499);
      assert(cancelled, "the disconnected request has a usage row");
      assert(rows.every((r) => r.keyId !== null && r.model === "demo"));
      const all = JSON.stringify(rows);
      assert(!all.includes(app.key), "no key in usage rows");
    } finally {
      store.close();
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
