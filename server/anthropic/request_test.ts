import { assertEquals, assertThrows } from "../../tests/assert.ts";
import { AppError } from "../../core/errors.ts";
import { toChatRequest } from "./request.ts";

Deno.test("a full Anthropic request becomes the OpenAI body an engine expects", () => {
  // Shaped after the Messages API reference: system blocks, a picture, a tool round trip.
  const t = toChatRequest({
    model: "qwen3",
    max_tokens: 1024,
    system: [{ type: "text", text: "You are terse." }, { type: "text", text: "Use tools." }],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture, and the weather?" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "I should call the tool.", signature: "x" },
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "12C" }] },
          { type: "text", text: "Thanks" },
        ],
      },
    ],
    tools: [{
      name: "get_weather",
      description: "Weather for a city",
      input_schema: { type: "object", properties: { city: { type: "string" } } },
    }],
    tool_choice: { type: "any", disable_parallel_tool_use: true },
    stop_sequences: ["\n\nHuman:"],
    temperature: 0.2,
    top_p: 0.9,
    top_k: 40,
    metadata: { user_id: "u-42" },
    thinking: { type: "enabled", budget_tokens: 2048 },
    stream: true,
  });
  assertEquals(t.stream, true);
  assertEquals(t.thinking, true);
  assertEquals(t.stopSequences, ["\n\nHuman:"]);
  assertEquals(t.body, {
    model: "qwen3",
    messages: [
      { role: "system", content: "You are terse.\nUse tools." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture, and the weather?" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
        ],
      },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [{
          id: "toolu_1",
          type: "function",
          function: { name: "get_weather", arguments: '{"city":"Paris"}' },
        }],
      },
      { role: "tool", tool_call_id: "toolu_1", content: "12C" },
      { role: "user", content: "Thanks" },
    ],
    max_tokens: 1024,
    temperature: 0.2,
    top_p: 0.9,
    top_k: 40,
    stop: ["\n\nHuman:"],
    stream: true,
    stream_options: { include_usage: true },
    user: "u-42",
    tools: [{
      type: "function",
      function: {
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        description: "Weather for a city",
      },
    }],
    tool_choice: "required",
    parallel_tool_calls: false,
    chat_template_kwargs: { enable_thinking: true },
  });
});

Deno.test("thinking disabled switches the template off; absent leaves it alone", () => {
  const base = { model: "m", max_tokens: 16, messages: [{ role: "user", content: "hi" }] };
  const off = toChatRequest({ ...base, thinking: { type: "disabled" } });
  assertEquals(off.body.chat_template_kwargs, { enable_thinking: false });
  assertEquals(off.thinking, false);
  const none = toChatRequest(base);
  assertEquals("chat_template_kwargs" in none.body, false);
  assertEquals(none.thinking, false);
});

Deno.test("tool_choice forms map to OpenAI's", () => {
  const choice = (tool_choice: unknown) =>
    toChatRequest({ model: "m", max_tokens: 16, messages: [], tool_choice }).body.tool_choice;
  assertEquals(choice({ type: "auto" }), "auto");
  assertEquals(choice({ type: "none" }), "none");
  assertEquals(choice({ type: "tool", name: "f" }), { type: "function", function: { name: "f" } });
});

Deno.test("sampling fields pass as sent: the engine, not llmgw, judges their types", () => {
  const t = toChatRequest({
    model: "m",
    max_tokens: 16,
    messages: [{ role: "user", content: "hi" }],
    temperature: "0.7",
    stream: "true",
    top_k: null,
  });
  assertEquals(t.body.temperature, "0.7");
  assertEquals(t.body.stream, "true");
  assertEquals(t.body.top_k, null);
  assertEquals(t.stream, false, "only a real true streams the answer back");
});

Deno.test("what must be translated and cannot be gets a 400 naming the field", () => {
  const param = (body: Record<string, unknown>) =>
    assertThrows(() => toChatRequest(body), AppError).param;
  assertEquals(param({ model: "m", max_tokens: 16, messages: "hi" }), "messages");
  assertEquals(
    param({ model: "m", max_tokens: 16, messages: [{ role: "system", content: "x" }] }),
    "messages.0.role",
  );
  assertEquals(
    param({ model: "m", max_tokens: 16, messages: [{ role: "user", content: 5 }] }),
    "messages.0.content",
  );
  assertEquals(
    param({
      model: "m",
      max_tokens: 16,
      messages: [{ role: "user", content: [{ type: "audio" }] }],
    }),
    "messages.0.content.0.type",
  );
  assertEquals(param({ model: "m", max_tokens: 16, messages: [], system: 3 }), "system");
  assertEquals(
    param({
      model: "m",
      max_tokens: 16,
      messages: [],
      tools: [{ type: "web_search_20250305", name: "web" }],
    }),
    "tools.0.type",
  );
  assertEquals(
    param({ model: "m", max_tokens: 16, messages: [], thinking: { type: "sometimes" } }),
    "thinking.type",
  );
  const err = assertThrows(
    () => toChatRequest({ model: "m", max_tokens: 16, messages: {} }),
    AppError,
  );
  assertEquals(err.code, "invalid_request");
});

Deno.test("a tool result with a picture keeps the picture, after the tool message", () => {
  const t = toChatRequest({
    model: "m",
    max_tokens: 16,
    messages: [{
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "t1",
        content: [
          { type: "text", text: "see" },
          { type: "image", source: { type: "url", url: "https://x/y.png" } },
        ],
      }],
    }],
  });
  assertEquals(t.body.messages, [
    { role: "tool", tool_call_id: "t1", content: "see" },
    { role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] },
  ]);
});

Deno.test("max_tokens is required, as Anthropic requires it", () => {
  for (const max_tokens of [undefined, null, 0, 1.5, "16"]) {
    const err = assertThrows(
      () => toChatRequest({ model: "m", max_tokens, messages: [{ role: "user", content: "hi" }] }),
      AppError,
    );
    assertEquals(err.param, "max_tokens", String(max_tokens));
  }
});
