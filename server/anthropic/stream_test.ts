import { assertEquals } from "../../tests/assert.ts";
import type { MessageContext } from "./response.ts";
import { StreamTranslator, translateStream } from "./stream.ts";
import { thinkingSignature } from "./response.ts";

const ctx: MessageContext = { id: "msg_1", model: "m", thinking: true, stopSequences: [] };

/** SSE text back into [event, data] pairs. */
function events(sse: string): [string, Record<string, unknown>][] {
  return sse.trim().split("\n\n").filter(Boolean).map((block) => {
    const [ev, data] = block.split("\n");
    return [ev!.slice("event: ".length), JSON.parse(data!.slice("data: ".length))];
  });
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });

Deno.test("thinking, text and a tool call become Anthropic's event sequence", () => {
  const t = new StreamTranslator(ctx);
  for (
    const data of [
      chunk({ role: "assistant", content: "" }),
      chunk({ reasoning_content: "Hmm" }),
      chunk({ content: "Let me " }),
      chunk({ content: "check." }),
      chunk({
        tool_calls: [{
          index: 0,
          id: "call_1",
          type: "function",
          function: { name: "f", arguments: "" },
        }],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      chunk({}, "tool_calls"),
      JSON.stringify({
        choices: [],
        usage: {
          prompt_tokens: 9,
          completion_tokens: 7,
          prompt_tokens_details: { cached_tokens: 4 },
        },
      }),
      "[DONE]",
    ]
  ) t.push(data);
  const got = events(t.take());
  assertEquals(got.map(([e]) => e), [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  assertEquals(got[1]![1], {
    type: "content_block_start",
    index: 0,
    content_block: { type: "thinking", thinking: "", signature: "" },
  });
  assertEquals(got[2]![1].delta, { type: "thinking_delta", thinking: "Hmm" });
  // The signature closes the thinking block, as Anthropic sends it.
  assertEquals(got[3]![1].delta, { type: "signature_delta", signature: thinkingSignature("Hmm") });
  assertEquals(got[6]![1], {
    type: "content_block_delta",
    index: 1,
    delta: { type: "text_delta", text: "Let me " },
  });
  assertEquals(got[9]![1], {
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "call_1", name: "f", input: {} },
  });
  assertEquals(got[10]![1].delta, { type: "input_json_delta", partial_json: '{"a":' });
  assertEquals(got[13]![1], {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { input_tokens: 5, output_tokens: 7, cache_read_input_tokens: 4 },
  });
});

Deno.test("reasoning is left out when thinking was not asked for", () => {
  const t = new StreamTranslator({ ...ctx, thinking: false });
  t.push(chunk({ reasoning_content: "Hmm" }));
  t.push(chunk({ content: "Hi" }, "length"));
  t.push("[DONE]");
  const got = events(t.take());
  assertEquals(got.filter(([e]) => e === "content_block_start").length, 1);
  assertEquals((got.at(-2)![1].delta as { stop_reason: string }).stop_reason, "max_tokens");
});

Deno.test("an engine error mid-stream becomes Anthropic's error event", () => {
  const t = new StreamTranslator(ctx);
  t.push(chunk({ content: "Hi" }));
  t.push(JSON.stringify({ error: { message: "slot crashed", type: "server_error" } }));
  t.push(chunk({ content: "ignored" }));
  const got = events(t.take());
  assertEquals(got.at(-1), ["error", {
    type: "error",
    error: { type: "api_error", message: "slot crashed" },
  }]);
});

Deno.test("each read of the relay goes out as one write; a broken stream ends in an error event", async () => {
  const enc = new TextEncoder();
  const reads = [
    `data: ${chunk({ content: "a" })}\n\ndata: ${chunk({ content: "b" })}\n\n`,
    `data: ${chunk({ content: "c" })}\n\n`,
  ];
  let i = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(ctrl) {
      if (i < reads.length) ctrl.enqueue(enc.encode(reads[i++]!));
      else ctrl.error(new Error("gone"));
    },
  });
  const writes: string[] = [];
  const dec = new TextDecoder();
  for await (const w of translateStream(source, ctx)) writes.push(dec.decode(w));
  assertEquals(writes.length, 3);
  assertEquals(events(writes[0]!).map(([e]) => e), [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_delta",
  ]);
  assertEquals(events(writes[1]!).map(([e]) => e), ["content_block_delta"]);
  assertEquals(events(writes[2]!).map(([e]) => e), ["error"]);
});

Deno.test("a stream that ends without [DONE] still closes the message", async () => {
  const source = new ReadableStream<Uint8Array>({
    start(ctrl) {
      ctrl.enqueue(new TextEncoder().encode(`data: ${chunk({ content: "x" }, "stop")}\n\n`));
      ctrl.close();
    },
  });
  let text = "";
  for await (const w of translateStream(source, ctx)) text += new TextDecoder().decode(w);
  const names = events(text).map(([e]) => e);
  assertEquals(names.slice(-3), ["content_block_stop", "message_delta", "message_stop"]);
});
