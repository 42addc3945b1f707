/**
 * The options of /v1/responses that change what the engine is sent, checked on what a recording
 * engine got (a real server on a loopback port as the model's replica): `reasoning` effort → the
 * template's thinking switch, `parallel_tool_calls`, `text.format`, `include`, `truncation`; and
 * the built-in tools refused by name.
 */
import OpenAI from "openai";
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, fakeServer } from "../../tests/helpers/routing.ts";
import { parseModel } from "../models/model_yaml.ts";

type Json = Record<string, unknown>;

/** The model `rec` (a context of 300 tokens) served by a server that keeps what it was sent. */
async function recording(h: Harness) {
  const seen: Json[] = [];
  const server = fakeServer(async (req) => {
    const body = await req.json();
    seen.push(body);
    return Response.json({
      id: "c",
      object: "chat.completion",
      model: body.model,
      choices: [{
        index: 0,
        message: { role: "assistant", content: "ok" },
        logprobs: body.logprobs
          ? {
            content: [{
              token: "ok",
              logprob: -0.25,
              bytes: [111, 107],
              top_logprobs: [{ token: "ok", logprob: -0.25, bytes: [111, 107] }],
            }],
          }
          : null,
        finish_reason: "stop",
      }],
      usage: { prompt_tokens: 5, completion_tokens: 1 },
    });
  });
  const def = parseModel({
    name: "rec",
    source: "/m.gguf",
    context_length: 300,
    profiles: [{ engine: "llamacpp" }],
  });
  await h.deps.catalog.upsert({
    name: "rec",
    engine: "sim",
    source: "",
    def: def as unknown as Json,
  });
  addReplica(h, "rec1", server.url, { model: "rec" });
  return { seen, last: () => seen.at(-1)!, close: server.close };
}

function client(h: Harness): OpenAI {
  return new OpenAI({
    baseURL: "http://llmgw.test/v1",
    apiKey: h.key,
    maxRetries: 0,
    fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
  });
}

Deno.test("reasoning effort is the template's thinking switch; parallel_tool_calls and text.format go on", async () => {
  const h = await startHarness();
  const rec = await recording(h);
  try {
    const openai = client(h);
    const ask = { model: "rec", input: "hi" };
    await openai.responses.create({ ...ask, reasoning: { effort: "high" } });
    assertEquals(rec.last().chat_template_kwargs, { enable_thinking: true });
    await openai.responses.create({ ...ask, reasoning: { effort: "none" } });
    assertEquals(rec.last().chat_template_kwargs, { enable_thinking: false });
    await openai.responses.create(ask);
    assertEquals(rec.last().chat_template_kwargs, undefined, "the template's default kept");
    const bad = await h.v1("/responses", { ...ask, reasoning: { effort: "max" } });
    assertEquals((await bad.json()).error.param, "reasoning.effort");

    const weather = {
      type: "function" as const,
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      strict: false,
    };
    await openai.responses.create({ ...ask, tools: [weather], parallel_tool_calls: false });
    assertEquals(rec.last().parallel_tool_calls, false);
    assertEquals((rec.last().tools as Json[])[0]!.type, "function");
    const r = await openai.responses.create({
      ...ask,
      text: {
        format: {
          type: "json_schema",
          name: "answer",
          schema: { type: "object", properties: { a: { type: "string" } } },
          strict: true,
        },
      },
    });
    assertEquals(rec.last().response_format, {
      type: "json_schema",
      json_schema: {
        name: "answer",
        schema: { type: "object", properties: { a: { type: "string" } } },
        strict: true,
      },
    });
    assertEquals(r.text?.format?.type, "json_schema", "echoed on the response");
  } finally {
    await rec.close();
    await h.close();
  }
});

Deno.test("include: the text's logprobs are asked and given; Codex's encrypted reasoning is no error", async () => {
  const h = await startHarness();
  const rec = await recording(h);
  try {
    const openai = client(h);
    const r = await openai.responses.create({
      model: "rec",
      input: "hi",
      include: ["message.output_text.logprobs"],
      top_logprobs: 1,
    });
    assertEquals(rec.last().logprobs, true);
    assertEquals(rec.last().top_logprobs, 1);
    const part = (r.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]!;
    assert(part.type === "output_text");
    assertEquals(part.logprobs?.[0]?.token, "ok");
    assertEquals(part.logprobs?.[0]?.top_logprobs[0]?.logprob, -0.25);

    const codex = await h.v1("/responses", {
      model: "rec",
      input: "hi",
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    assertEquals(codex.status, 200);
    assertEquals(rec.last().logprobs, undefined);
    const unknown = await h.v1("/responses", {
      model: "rec",
      input: "hi",
      include: ["everything"],
    });
    assertEquals(unknown.status, 400);
    assertEquals((await unknown.json()).error.param, "include.0");
  } finally {
    await rec.close();
    await h.close();
  }
});

Deno.test("truncation: auto drops the oldest turns to fit the context, disabled is a 400", async () => {
  const h = await startHarness();
  const rec = await recording(h);
  try {
    const openai = client(h);
    // About 100 tokens each (the gateway's estimate: 4 characters a token); the context is 300.
    const long = (word: string) => `${word} `.repeat(80);
    const first = await openai.responses.create({ model: "rec", input: long("first") });
    const second = await openai.responses.create({
      model: "rec",
      input: long("second"),
      previous_response_id: first.id,
    });
    const third = { model: "rec", input: long("third"), previous_response_id: second.id };
    const refused = await h.v1("/responses", third);
    assertEquals(refused.status, 400);
    const error = (await refused.json()).error;
    assertEquals(error.param, "input");
    assert(error.message.includes("300"), error.message);

    const sent = rec.seen.length;
    const r = await openai.responses.create({ ...third, truncation: "auto" });
    assertEquals(r.truncation, "auto");
    assertEquals(rec.seen.length, sent + 1);
    const texts = (rec.last().messages as Json[]).map((m) => String(m.content));
    assert(!texts.some((t) => t.startsWith("first")), "the oldest turn is not sent");
    assert(texts.some((t) => t.startsWith("second")), "the one before is");
    assert(texts.at(-1)!.startsWith("third"));
    // The store keeps the whole conversation: the next turn (disabled) still finds it too long.
    const next = await h.v1("/responses", { model: "rec", input: "x", previous_response_id: r.id });
    assertEquals(next.status, 400);

    const huge = await h.v1("/responses", {
      model: "rec",
      input: long("alone").repeat(4),
      truncation: "auto",
    });
    assertEquals(huge.status, 400, "an input alone too long is not cut");
    const bad = await h.v1("/responses", { model: "rec", input: "x", truncation: "middle" });
    assertEquals((await bad.json()).error.param, "truncation");
  } finally {
    await rec.close();
    await h.close();
  }
});

Deno.test("every built-in tool that needs the outside world is refused by its name, in OpenAI's shape", async () => {
  const h = await startHarness();
  try {
    const tools = [
      "web_search",
      "web_search_preview",
      "code_interpreter",
      "computer_use",
      "computer_use_preview",
      "image_generation",
      "local_shell",
      "shell",
      "mcp",
    ];
    for (const type of tools) {
      const res = await h.v1("/responses", { model: "demo", input: "hi", tools: [{ type }] });
      assertEquals(res.status, 400, type);
      const { error } = await res.json();
      assertEquals(error.type, "invalid_request_error");
      assertEquals(error.param, "tools.0.type");
      assert(error.message.includes(`'${type}'`), error.message);
      assert(error.message.includes("not available here"), error.message);
      const chosen = await h.v1("/responses", {
        model: "demo",
        input: "hi",
        tool_choice: { type },
      });
      assertEquals(chosen.status, 400, `tool_choice ${type}`);
      assertEquals((await chosen.json()).error.param, "tool_choice");
    }
  } finally {
    await h.close();
  }
});
