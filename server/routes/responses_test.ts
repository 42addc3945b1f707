/**
 * /v1/responses through the official OpenAI SDK, whose `responses.stream()` helper checks the
 * event sequence (ids, indexes, every item finished before response.completed), against the
 * real app and the simulated engine.
 */
import OpenAI, { NotFoundError } from "openai";
import { assert, assertEquals, assertMatch, assertRejects } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { usage } from "../../db/schema.ts";

function client(h: Harness, key = h.key): OpenAI {
  return new OpenAI({
    baseURL: "http://llmgw.test/v1",
    apiKey: key,
    maxRetries: 0,
    fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
  });
}

const weather = {
  type: "function" as const,
  name: "get_weather",
  description: "The weather in a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  strict: true,
};

Deno.test("responses.create answers text with usage, and retrieve and delete find it per key", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const r = await openai.responses.create({
      model: "demo",
      instructions: "Be brief.",
      input: "Say hello",
      max_output_tokens: 9,
      metadata: { run: "t1" },
    });
    assertEquals(r.object, "response");
    assertMatch(r.id, /^resp_/);
    assert(r.output_text.length > 0, "the SDK reads the text");
    assertEquals(r.usage?.output_tokens, 9);
    assert((r.usage?.input_tokens ?? 0) > 0);
    assertEquals(r.metadata, { run: "t1" });
    assertEquals(r.status, "incomplete", "cut by max_output_tokens");
    assertEquals(r.incomplete_details?.reason, "max_output_tokens");

    const again = await openai.responses.retrieve(r.id);
    assertEquals(again.output_text, r.output_text);
    const items = await openai.responses.inputItems.list(r.id);
    assertEquals(items.data.length, 1);
    assertEquals(items.data[0]!.type, "message");

    const { key: other } = await h.deps.keys.create({ name: "other" });
    await assertRejects(() => client(h, other).responses.retrieve(r.id), NotFoundError);

    await openai.responses.delete(r.id);
    await assertRejects(() => openai.responses.retrieve(r.id), NotFoundError);

    await h.usage.flush();
    const rows = await h.store.db.select().from(usage);
    assertEquals(rows.map((u) => u.endpoint), ["/responses"], "the row names its own path");
    assertEquals(rows[0]!.completionTokens, 9);
  } finally {
    await h.close();
  }
});

Deno.test("responses.stream gives text through the SDK's checked event sequence", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const stream = openai.responses.stream({
      model: "demo",
      input: "Say hello",
      max_output_tokens: 6,
    });
    const types: string[] = [];
    let deltas = "";
    for await (const ev of stream) {
      types.push(ev.type);
      if (ev.type === "response.output_text.delta") deltas += ev.delta;
    }
    const final = await stream.finalResponse();
    assertEquals(final.output_text, deltas);
    assertEquals(final.usage?.output_tokens, 6);
    assertEquals(types.slice(0, 4), [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    assertEquals(types.slice(-4), [
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.incomplete",
    ]);
    const kept = await openai.responses.retrieve(final.id);
    assertEquals(kept.output_text, deltas, "a streamed response is kept too");
  } finally {
    await h.close();
  }
});

Deno.test("a function call streamed, its output sent back with previous_response_id, answered", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const first = openai.responses.stream({
      model: "demo",
      input: "What is the weather in Paris?",
      tools: [weather],
      tool_choice: { type: "function", name: "get_weather" },
    });
    let argDeltas = "";
    for await (const ev of first) {
      if (ev.type === "response.function_call_arguments.delta") argDeltas += ev.delta;
    }
    const turn1 = await first.finalResponse();
    const call = turn1.output.find((o) => o.type === "function_call");
    assert(call && call.type === "function_call", "a function_call item");
    assertEquals(call.name, "get_weather");
    assertEquals(call.arguments, argDeltas);
    assertEquals(typeof JSON.parse(call.arguments).city, "string");

    const second = openai.responses.stream({
      model: "demo",
      previous_response_id: turn1.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "18 C, sunny" }],
      tools: [weather],
      max_output_tokens: 8,
    });
    for await (const _ of second) { /* read to the end */ }
    const turn2 = await second.finalResponse();
    assertEquals(turn2.previous_response_id, turn1.id);
    assert(turn2.output_text.length > 0);
    // The engine saw the whole conversation: the question, the call and its output.
    assert(
      turn2.usage!.input_tokens > turn1.usage!.input_tokens,
      `second turn's prompt (${turn2.usage!.input_tokens}) holds the first's (${
        turn1.usage!.input_tokens
      })`,
    );
  } finally {
    await h.close();
  }
});

Deno.test("structured output: text.format json_schema gives JSON the SDK parses", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const stream = openai.responses.stream({
      model: "demo",
      input: "A city and its population",
      text: {
        format: {
          type: "json_schema",
          name: "city",
          strict: true,
          schema: {
            type: "object",
            properties: { name: { type: "string" }, population: { type: "integer" } },
            required: ["name", "population"],
            additionalProperties: false,
          },
        },
      },
    });
    for await (const _ of stream) { /* read to the end */ }
    const final = await stream.finalResponse();
    const parsed = JSON.parse(final.output_text);
    assertEquals(typeof parsed.name, "string");
    assertEquals(typeof parsed.population, "number");
  } finally {
    await h.close();
  }
});

Deno.test("built-in tools that need the outside world are refused by name, in OpenAI's shape", async () => {
  const h = await startHarness();
  try {
    for (const type of ["web_search", "code_interpreter", "computer_use_preview"]) {
      const res = await h.v1("/responses", { model: "demo", input: "hi", tools: [{ type }] });
      assertEquals(res.status, 400, type);
      const body = await res.json();
      assertEquals(body.error.type, "invalid_request_error");
      assertEquals(body.error.param, "tools.0.type");
      assert(body.error.message.includes(`'${type}'`), body.error.message);
    }
    // file_search runs here (server/kb/rag_test.ts), over knowledge bases it must name.
    const search = await h.v1("/responses", {
      model: "demo",
      input: "hi",
      tools: [{ type: "file_search" }],
    });
    assertEquals(search.status, 400);
    assertEquals((await search.json()).error.param, "tools.0.vector_store_ids");
    const missing = await h.v1("/responses", {
      model: "demo",
      input: "hi",
      previous_response_id: "resp_nope",
    });
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).error.param, "previous_response_id");
  } finally {
    await h.close();
  }
});

Deno.test("store: false answers without keeping the response", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const r = await openai.responses.create({ model: "demo", input: "hi", store: false });
    await assertRejects(() => openai.responses.retrieve(r.id), NotFoundError);
  } finally {
    await h.close();
  }
});

Deno.test("reasoning with a summary asked: the model's reasoning comes back as a reasoning item", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const stream = openai.responses.stream({
      model: "demo",
      input: "Think, then say hello",
      reasoning: { effort: "low", summary: "auto" },
      max_output_tokens: 30,
    });
    let summary = "";
    for await (const ev of stream) {
      if (ev.type === "response.reasoning_summary_text.delta") summary += ev.delta;
    }
    const final = await stream.finalResponse();
    const item = final.output[0];
    assert(item?.type === "reasoning", "reasoning first");
    assertEquals(item.summary[0]?.text, summary);
    assert(summary.length > 0);
    const plain = await openai.responses.create({
      model: "demo",
      input: "hi",
      max_output_tokens: 5,
    });
    assert(plain.output.every((o) => o.type !== "reasoning"), "none when not asked");
  } finally {
    await h.close();
  }
});
