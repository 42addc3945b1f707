/**
 * End to end: a real `llmgw up` on a random port, the official Anthropic SDK as the client, the
 * simulated engine behind it. /v1/messages is translated to chat completions and back.
 */
import Anthropic from "@anthropic-ai/sdk";
import { assert, assertEquals, assertMatch, assertRejects } from "../assert.ts";
import { startAppliance } from "../helpers/appliance.ts";

const weatherTool: Anthropic.Tool = {
  name: "get_weather",
  description: "The weather in a city",
  input_schema: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" } },
    required: ["city", "days"],
  },
};

Deno.test({
  name: "llmgw up answers the Anthropic SDK on /v1/messages",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const app = await startAppliance({ args: ["--engines-sim-tokens-per-second", "5000"] });
    // The SDK adds /v1/messages itself; it sends the key as x-api-key with anthropic-version.
    const client = new Anthropic({ baseURL: app.url, apiKey: app.key, maxRetries: 0 });
    const ask: Anthropic.MessageParam[] = [{ role: "user", content: "Say hello" }];
    try {
      let plain: Anthropic.Message | undefined;
      await t.step("a message, not streamed", async () => {
        plain = await client.messages.create({
          model: "demo",
          max_tokens: 16,
          system: "You are brief.",
          messages: ask,
        });
        assertMatch(plain.id, /^msg_/);
        assertEquals(plain.type, "message");
        assertEquals(plain.role, "assistant");
        assertEquals(plain.model, "demo");
        assertEquals(plain.content.length, 1);
        const block = plain.content[0]!;
        assert(block.type === "text" && block.text.length > 0);
        assertEquals(plain.stop_reason, "max_tokens");
        assertEquals(plain.usage.output_tokens, 16);
        assert(plain.usage.input_tokens > 0);
      });

      await t.step("the same message streamed, collected by the SDK's stream helper", async () => {
        const stream = client.messages.stream({
          model: "demo",
          max_tokens: 16,
          system: "You are brief.",
          messages: ask,
        });
        let deltas = "";
        stream.on("text", (d) => (deltas += d));
        const final = await stream.finalMessage();
        assertEquals(final.content, plain!.content, "streamed and whole answers agree");
        assertEquals(deltas, (plain!.content[0] as Anthropic.TextBlock).text);
        assertEquals(final.stop_reason, "max_tokens");
        assertEquals(final.usage.output_tokens, 16);
        // The engine keeps the first answer's prompt in its cache: the second reads most of it
        // from there, which Anthropic's usage counts apart from the input it processed.
        const prompt = (u: Anthropic.Usage) => u.input_tokens + (u.cache_read_input_tokens ?? 0);
        assertEquals(prompt(final.usage), prompt(plain!.usage));
      });

      await t.step("a tool call round trip: tool_use, then tool_result", async () => {
        const first = await client.messages.create({
          model: "demo",
          max_tokens: 200,
          messages: [{ role: "user", content: "Weather in Paris for 3 days?" }],
          tools: [weatherTool],
          tool_choice: { type: "tool", name: "get_weather" },
        });
        assertEquals(first.stop_reason, "tool_use");
        const use = first.content.find((b) => b.type === "tool_use");
        assert(use && use.type === "tool_use", "a tool_use block");
        assertEquals(use.name, "get_weather");
        const input = use.input as Record<string, unknown>;
        assertEquals(Object.keys(input).sort(), ["city", "days"]);
        assertEquals(typeof input.city, "string");
        assert(Number.isInteger(input.days));

        // The streamed call carries the same input, assembled from input_json_delta events.
        const streamed = await client.messages.stream({
          model: "demo",
          max_tokens: 200,
          messages: [{ role: "user", content: "Weather in Paris for 3 days?" }],
          tools: [weatherTool],
          tool_choice: { type: "any" },
        }).finalMessage();
        assertEquals(streamed.stop_reason, "tool_use");
        const streamedUse = streamed.content.find((b) => b.type === "tool_use");
        assertEquals((streamedUse as Anthropic.ToolUseBlock).input, use.input);

        const second = await client.messages.create({
          model: "demo",
          max_tokens: 12,
          tools: [weatherTool],
          messages: [
            { role: "user", content: "Weather in Paris for 3 days?" },
            { role: "assistant", content: first.content },
            {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: use.id, content: "Sunny, 21C" }],
            },
          ],
        });
        assertEquals(second.content[0]?.type, "text");
        assertEquals(second.stop_reason, "max_tokens");
      });

      await t.step("thinking enabled reaches the template and comes back as thinking", async () => {
        const on = await client.messages.create({
          model: "demo",
          max_tokens: 40,
          thinking: { type: "enabled", budget_tokens: 1024 },
          messages: ask,
        });
        assertEquals(on.content.map((b) => b.type), ["thinking", "text"]);
        assert((on.content[0] as Anthropic.ThinkingBlock).thinking.length > 0);
        const streamed = await client.messages.stream({
          model: "demo",
          max_tokens: 40,
          thinking: { type: "enabled", budget_tokens: 1024 },
          messages: ask,
        }).finalMessage();
        assertEquals(
          (streamed.content[0] as Anthropic.ThinkingBlock).thinking,
          (on.content[0] as Anthropic.ThinkingBlock).thinking,
        );
        const off = await client.messages.create({
          model: "demo",
          max_tokens: 40,
          thinking: { type: "disabled" },
          messages: ask,
        });
        assertEquals(off.content.map((b) => b.type), ["text"]);
      });

      await t.step("a wrong key is 401 authentication_error in Anthropic's shape", async () => {
        const bad = new Anthropic({ baseURL: app.url, apiKey: "sk-llmgw-wrong", maxRetries: 0 });
        const err = await assertRejects(
          () => bad.messages.create({ model: "demo", max_tokens: 4, messages: ask }),
          Anthropic.AuthenticationError,
        );
        assertEquals(err.status, 401);
        assertEquals((err.error as { type: string }).type, "error");
        assertEquals((err.error as { error: { type: string } }).error.type, "authentication_error");
      });

      await t.step("an unknown model is 404 not_found_error", async () => {
        const err = await assertRejects(
          () => client.messages.create({ model: "nope", max_tokens: 4, messages: ask }),
          Anthropic.NotFoundError,
        );
        const body = err.error as { error: { type: string; message: string } };
        assertEquals(body.error.type, "not_found_error");
        assertMatch(body.error.message, /nope/);
      });

      await t.step("a bad body is 400 invalid_request_error naming what is wrong", async () => {
        const err = await assertRejects(
          () =>
            client.messages.create({
              model: "demo",
              max_tokens: 4,
              messages: [{ role: "system" as "user", content: "x" }],
            }),
          Anthropic.BadRequestError,
        );
        const body = err.error as { error: { type: string; message: string } };
        assertEquals(body.error.type, "invalid_request_error");
        assertMatch(body.error.message, /messages\.0\.role/);

        const res = await fetch(`${app.url}/v1/messages`, {
          method: "POST",
          headers: { "x-api-key": app.key, "anthropic-version": "2023-06-01" },
          body: '{"model": "demo", "messages": [',
        });
        assertEquals(res.status, 400);
        const raw = await res.json();
        assertEquals(raw.type, "error");
        assertEquals(raw.error.type, "invalid_request_error");
        assertMatch(raw.error.message, /not valid JSON/);
      });

      await t.step("OpenAI's paths keep OpenAI's envelope", async () => {
        const res = await fetch(`${app.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: "Bearer sk-llmgw-wrong" },
          body: "{}",
        });
        assertEquals(res.status, 401);
        assertEquals((await res.json()).error.code, "invalid_api_key");
      });
    } finally {
      assertEquals(await app.stop(), 0, "llmgw up exits cleanly on Ctrl-C");
      await Deno.remove(app.dataDir, { recursive: true });
    }
  },
});
