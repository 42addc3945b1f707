/**
 * End to end with the OpenAI SDK: what clients send beyond model and messages (tools, tool_choice,
 * response_format, logprobs, n, stop, pictures) reaches the engine untouched and its answer comes
 * back; fields llmgw does not need never cause a refusal; rerank goes only to reranking models.
 */
import OpenAI, { APIError } from "openai";
import { assert, assertEquals, assertMatch, assertNotEquals, assertRejects } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";
import { startHarness } from "../helpers/harness.ts";
import { startSimEngine } from "../../agent/sim_engine/serve.ts";
import { usage } from "../../db/schema.ts";

const weather: OpenAI.ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: { city: { type: "string" }, unit: { type: "string", enum: ["c", "f"] } },
      required: ["city", "unit"],
    },
  },
};
const ask = [{ role: "user" as const, content: "What is the weather in Oslo?" }];

Deno.test({
  name: "llmgw up passes tools, formats, logprobs, n, stop and pictures through",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const app = await startAppliance({ args: ["--engines-sim-tokens-per-second", "5000"] });
    const client = new OpenAI({ baseURL: `${app.url}/v1`, apiKey: app.key, maxRetries: 0 });
    const post = (path: string, body: unknown) =>
      fetch(`${app.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${app.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    try {
      let call: OpenAI.ChatCompletionMessageFunctionToolCall | undefined;
      await t.step("a tool call, not streamed", async () => {
        const r = await client.chat.completions.create({
          model: "demo",
          messages: ask,
          tools: [weather],
          tool_choice: "required",
        });
        assertEquals(r.choices[0]!.finish_reason, "tool_calls");
        call = r.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
        assertEquals(call.function.name, "get_weather");
        const args = JSON.parse(call.function.arguments);
        assertEquals(Object.keys(args).sort(), ["city", "unit"]);
        assertEquals(args.unit, "c");
      });

      await t.step("the same tool call streamed in fragments", async () => {
        const stream = await client.chat.completions.create({
          model: "demo",
          messages: ask,
          tools: [weather],
          tool_choice: "required",
          stream: true,
        });
        let args = "";
        let fragments = 0;
        let id: string | undefined;
        let finish: string | null = null;
        for await (const chunk of stream) {
          for (const tc of chunk.choices[0]?.delta.tool_calls ?? []) {
            id ??= tc.id;
            args += tc.function?.arguments ?? "";
            fragments++;
          }
          finish = chunk.choices[0]?.finish_reason ?? finish;
        }
        assertEquals(id, call!.id);
        assertEquals(args, call!.function.arguments);
        // How many pieces the arguments take depends on timing; the head always comes alone.
        assert(fragments >= 2, `id and name first, then the arguments (${fragments})`);
        assertEquals(finish, "tool_calls");
      });

      await t.step("response_format json_object", async () => {
        const r = await client.chat.completions.create({
          model: "demo",
          messages: ask,
          response_format: { type: "json_object" },
        });
        const parsed = JSON.parse(r.choices[0]!.message.content!);
        assertEquals(typeof parsed, "object");
      });

      await t.step("logprobs", async () => {
        const r = await client.chat.completions.create({
          model: "demo",
          messages: ask,
          max_tokens: 6,
          logprobs: true,
          top_logprobs: 3,
        });
        const content = r.choices[0]!.logprobs!.content!;
        assertEquals(content.map((x) => x.token).join(""), r.choices[0]!.message.content);
        assert(content.every((x) => x.top_logprobs.length === 3));
      });

      let plain = "";
      await t.step("n=2 gives two different choices", async () => {
        const r = await client.chat.completions.create({
          model: "demo",
          messages: ask,
          max_tokens: 30,
          n: 2,
        });
        assertEquals(r.choices.map((c) => c.index), [0, 1]);
        assertNotEquals(r.choices[0]!.message.content, r.choices[1]!.message.content);
        plain = r.choices[0]!.message.content!;
      });

      await t.step("stop cuts the answer where the stop sequence starts", async () => {
        const stop = plain.slice(10, 16);
        const r = await client.chat.completions.create({
          model: "demo",
          messages: ask,
          max_tokens: 30,
          stop: [stop],
        });
        assertEquals(r.choices[0]!.message.content, plain.slice(0, plain.indexOf(stop)));
        assertEquals(r.choices[0]!.finish_reason, "stop");
      });

      await t.step("vision content is accepted", async () => {
        const r = await client.chat.completions.create({
          model: "demo",
          max_tokens: 4,
          messages: [{
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
            ],
          }],
        });
        assert((r.choices[0]!.message.content ?? "").length > 0);
      });

      await t.step("fields llmgw only reads for itself never cause a refusal", async () => {
        for (
          const extra of [
            { stream: "true" },
            { stream_options: null },
            { stream: true, stream_options: null },
            { temperature: "0.7" },
          ]
        ) {
          const res = await post("/v1/chat/completions", {
            model: "demo",
            messages: ask,
            max_tokens: 3,
            ...extra,
          });
          assertEquals(res.status, 200, `accepted with ${JSON.stringify(extra)}`);
          await res.body?.cancel();
        }
        const wrong = await post("/v1/chat/completions", { model: 5, messages: ask });
        assertEquals(wrong.status, 400);
        assertEquals((await wrong.json()).error.param, "model");
      });

      await t.step("rerank on a model that does not offer it is refused clearly", async () => {
        for (const path of ["/v1/rerank", "/rerank", "/v1/reranking"]) {
          const res = await post(path, { model: "demo", query: "q", documents: ["a"] });
          assertEquals(res.status, 400, path);
          const { error } = await res.json();
          assertEquals(error.code, "unsupported_endpoint");
          assertEquals(error.param, "model");
          assertMatch(error.message, /'demo'.*rerank/);
        }
        const err = await assertRejects(
          () => client.post("/rerank", { body: { model: "nope", query: "q", documents: ["a"] } }),
          APIError,
        );
        assertEquals(err.status, 404);
      });
    } finally {
      assertEquals(await app.stop(), 0, "llmgw up exits cleanly on Ctrl-C");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});

Deno.test({
  name: "rerank reaches an engine started with --reranking and its answer comes back",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // The real app on a real port, with a second sim engine that reranks as llama-server does.
    const h = await startHarness();
    const reranker = await startSimEngine({ reranking: true, apiKey: "rerank-secret" });
    await h.deps.catalog.upsert({
      name: "reranker",
      engine: "sim",
      source: "",
      args: ["--reranking"],
    });
    h.deps.replicas.upsert({
      id: "rr1",
      model: "reranker",
      baseUrl: reranker.url,
      apiKey: "rerank-secret",
      state: "ready",
    });
    const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: resolve },
      h.app.fetch,
    );
    const addr = await listening;
    const base = `http://127.0.0.1:${addr.port}`;
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: h.key, maxRetries: 0 });
    try {
      const body = {
        model: "reranker",
        query: "green river",
        documents: ["a quiet market", "the green river bank", "river stones"],
        top_n: 2,
      };
      const r = await client.post<{ results: { index: number; relevance_score: number }[] }>(
        "/rerank",
        { body },
      );
      assertEquals(r.results.length, 2);
      assertEquals(r.results[0]!.index, 1);
      const alias = await fetch(`${base}/rerank`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.key}` },
        body: JSON.stringify(body),
      });
      assertEquals(alias.status, 200);
      assertEquals((await alias.json()).results, r.results);
      const noKey = await fetch(`${base}/rerank`, { method: "POST", body: JSON.stringify(body) });
      assertEquals(noKey.status, 401);
      await noKey.body?.cancel();

      await h.usage.flush();
      const rows = await h.store.db.select().from(usage);
      const reranks = rows.filter((x) => x.endpoint === "/rerank" && x.status === 200);
      assertEquals(reranks.length, 2);
      assert(reranks.every((x) => x.promptTokens > 0 && x.model === "reranker"));
    } finally {
      await server.shutdown();
      await reranker.close();
      await h.close();
    }
  },
});
