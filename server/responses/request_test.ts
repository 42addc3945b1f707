import { assertEquals, assertThrows } from "../../tests/assert.ts";
import { AppError } from "../../core/errors.ts";
import { toChatRequest } from "./request.ts";

let n = 0;
const newId = (p: string) => `${p}_${++n}`;

Deno.test("Responses input items become the chat messages an engine expects", () => {
  const t = toChatRequest(
    {
      model: "m",
      instructions: "Be brief.",
      input: [
        { role: "developer", content: "Use tools." },
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_text", text: "What is this?" },
            { type: "input_image", image_url: "data:image/png;base64,AAAA" },
          ],
        },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "function_call", call_id: "c1", name: "look", arguments: '{"a":1}' },
        { type: "function_call", call_id: "c2", name: "look", arguments: '{"a":2}' },
        { type: "function_call_output", call_id: "c1", output: "one" },
        {
          type: "function_call_output",
          call_id: "c2",
          output: [{ type: "input_text", text: "two" }],
        },
      ],
      max_output_tokens: 50,
      text: {
        format: { type: "json_schema", name: "x", schema: { type: "object" }, strict: true },
      },
      reasoning: { effort: "none" },
      tool_choice: { type: "function", name: "look" },
    },
    [],
    newId,
  );
  assertEquals(t.body.messages, [
    { role: "system", content: "Be brief." },
    { role: "system", content: "Use tools." },
    {
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "look", arguments: '{"a":1}' } },
        { id: "c2", type: "function", function: { name: "look", arguments: '{"a":2}' } },
      ],
    },
    { role: "tool", tool_call_id: "c1", content: "one" },
    { role: "tool", tool_call_id: "c2", content: "two" },
  ]);
  assertEquals(t.body.max_tokens, 50);
  assertEquals(t.body.response_format, {
    type: "json_schema",
    json_schema: { name: "x", schema: { type: "object" }, strict: true },
  });
  assertEquals(t.body.chat_template_kwargs, { enable_thinking: false });
  assertEquals(t.body.tool_choice, { type: "function", function: { name: "look" } });
  assertEquals(t.input.length, 7, "every input item is kept, with an id");
});

Deno.test("the conversation of earlier turns comes before this input, after instructions", () => {
  const history = [
    { id: "m1", type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
    {
      id: "m2",
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "hello", annotations: [] }],
    },
  ];
  const t = toChatRequest(
    { model: "m", input: "again", instructions: "New rules." },
    history,
    newId,
  );
  assertEquals(t.body.messages, [
    { role: "system", content: "New rules." },
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello" },
    { role: "user", content: "again" },
  ]);
});

Deno.test("what cannot be served here is refused naming the field", () => {
  const param = (body: Record<string, unknown>) =>
    assertThrows(() => toChatRequest({ model: "m", input: "x", ...body }, [], newId), AppError)
      .param;
  assertEquals(param({ tools: [{ type: "web_search_preview" }] }), "tools.0.type");
  assertEquals(param({ tool_choice: { type: "code_interpreter" } }), "tool_choice");
  assertEquals(param({ background: true, store: false }), "store");
  assertEquals(param({ input: [{ type: "item_reference", id: "x" }] }), "input.0.type");
  assertEquals(
    param({ input: [{ role: "user", content: [{ type: "input_file" }] }] }),
    "input.0.content.0.type",
  );
  assertEquals(param({ text: { format: { type: "yaml" } } }), "text.format.type");
});
