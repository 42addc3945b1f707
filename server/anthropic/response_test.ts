import { assert, assertEquals } from "../../tests/assert.ts";
import {
  type MessageContext,
  thinkingSignature,
  toErrorBody,
  toMessage,
  toolInput,
  usageOf,
} from "./response.ts";

const ctx: MessageContext = { id: "msg_1", model: "qwen3", thinking: false, stopSequences: [] };

Deno.test("a text answer becomes a message with end_turn and usage", () => {
  // llama-server's chat completion, as it answers.
  const m = toMessage({
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{
      index: 0,
      finish_reason: "stop",
      message: { role: "assistant", content: "Hello!", reasoning_content: "Greet them." },
    }],
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  }, ctx);
  assertEquals(m, {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "qwen3",
    content: [{ type: "text", text: "Hello!" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  });
});

Deno.test("reasoning comes back as a thinking block first, only when thinking was asked", () => {
  const completion = {
    choices: [{
      index: 0,
      finish_reason: "length",
      message: { role: "assistant", content: "42", reasoning_content: "Let me think." },
    }],
  };
  const m = toMessage(completion, { ...ctx, thinking: true });
  const [thinking, text] = m.content;
  assertEquals(text, { type: "text", text: "42" });
  assert(thinking?.type === "thinking");
  assertEquals(thinking.thinking, "Let me think.");
  assert(
    thinking.signature.length > 0,
    "Anthropic's clients expect a signature on every thinking block",
  );
  assertEquals(thinking.signature, thinkingSignature("Let me think."), "stable for the same text");
  assertEquals(m.stop_reason, "max_tokens");
});

Deno.test("tool calls become tool_use blocks with parsed input and stop_reason tool_use", () => {
  const m = toMessage({
    choices: [{
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
          { id: "call_2", type: "function", function: { name: "g", arguments: "{}" } },
        ],
      },
    }],
  }, ctx);
  assertEquals(m.content, [
    { type: "tool_use", id: "call_1", name: "f", input: { a: 1 } },
    { type: "tool_use", id: "call_2", name: "g", input: {} },
  ]);
  assertEquals(m.stop_reason, "tool_use");
});

Deno.test("arguments that are not a JSON object are kept, not dropped", () => {
  assertEquals(toolInput('{"a": [1]}'), { a: [1] });
  assertEquals(toolInput(""), {});
  assertEquals(toolInput('{"a": '), { _raw_arguments: '{"a": ' });
  assertEquals(toolInput("[1]"), { _raw_arguments: "[1]" });
});

Deno.test("a stop sequence is named when the engine names it (vLLM's stop_reason)", () => {
  const completion = {
    choices: [{
      index: 0,
      finish_reason: "stop",
      stop_reason: "END",
      message: { role: "assistant", content: "x" },
    }],
  };
  const m = toMessage(completion, { ...ctx, stopSequences: ["END"] });
  assertEquals([m.stop_reason, m.stop_sequence], ["stop_sequence", "END"]);
  const other = toMessage(completion, { ...ctx, stopSequences: ["STOP"] });
  assertEquals([other.stop_reason, other.stop_sequence], ["end_turn", null]);
});

Deno.test("cached prompt tokens are reported apart, from OpenAI's details or llama.cpp's timings", () => {
  assertEquals(
    usageOf({
      usage: {
        prompt_tokens: 100,
        completion_tokens: 5,
        prompt_tokens_details: { cached_tokens: 80 },
      },
    }),
    { input_tokens: 20, output_tokens: 5, cache_read_input_tokens: 80 },
  );
  assertEquals(
    usageOf({ usage: { prompt_tokens: 100, completion_tokens: 5 }, timings: { cache_n: 64 } }),
    { input_tokens: 36, output_tokens: 5, cache_read_input_tokens: 64 },
  );
  assertEquals(usageOf({}), { input_tokens: 0, output_tokens: 0 });
});

Deno.test("an engine's OpenAI-shaped error is passed on in Anthropic's shape", () => {
  const body = toErrorBody(
    400,
    JSON.stringify({ error: { message: "context too long", type: "invalid_request_error" } }),
    "req1",
  );
  assertEquals(body, {
    type: "error",
    error: { type: "invalid_request_error", message: "context too long" },
    request_id: "req1",
  });
  assertEquals(toErrorBody(503, "busy").error, { type: "overloaded_error", message: "busy" });
});
