import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type OpenAI from "openai";
import { withSimEngine } from "./with_sim_engine.ts";
import { plannedCall, sampleValue, toTokens } from "./structured.ts";
import { prng } from "./generate.ts";

const fast = { tokensPerSecond: 5000 };
const ask = [{ role: "user" as const, content: "What is the weather in Paris?" }];
const weather: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        days: { type: "integer" },
        note: { type: "string" },
      },
      required: ["city", "unit", "days"],
    },
  },
};

Deno.test("schema samples hold the required properties with the right types", () => {
  const v = sampleValue(weather.function.parameters, prng(1)) as Record<string, unknown>;
  assertEquals(Object.keys(v).sort(), ["city", "days", "unit"]);
  assertEquals(v.unit, "celsius");
  assert(Number.isInteger(v.days));
  assertEquals(typeof v.city, "string");
  assertEquals(toTokens('{"a": 1}').join(""), '{"a": 1}');
  assertEquals(plannedCall([weather], "auto", 1), undefined, "auto answers in words");
});

Deno.test("a forced tool call comes back whole, with finish_reason tool_calls", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const req = {
      model: "m",
      messages: ask,
      tools: [weather],
      tool_choice: { type: "function" as const, function: { name: "get_weather" } },
    };
    const r = await openai.chat.completions.create(req);
    const choice = r.choices[0]!;
    assertEquals(choice.finish_reason, "tool_calls");
    assertEquals(choice.message.content, null);
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assertEquals(call.function.name, "get_weather");
    const args = JSON.parse(call.function.arguments);
    assertEquals(Object.keys(args).sort(), ["city", "days", "unit"]);
    assert(!call.function.arguments.includes("Paris"), "nothing of the prompt is echoed");
    const again = await openai.chat.completions.create(req);
    assertEquals(again.choices[0]!.message.tool_calls, choice.message.tool_calls, "deterministic");

    // Streamed: the SDK's own helper puts the fragments back together.
    const stream = openai.chat.completions.stream({ ...req, stream: true });
    const final = await stream.finalChatCompletion();
    assertEquals(final.choices[0]!.finish_reason, "tool_calls");
    assertEquals(final.choices[0]!.message.tool_calls, choice.message.tool_calls);
  });
});

Deno.test("response_format json_object answers a JSON object", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const r = await openai.chat.completions.create({
      model: "m",
      messages: ask,
      response_format: { type: "json_object" },
    });
    const parsed = JSON.parse(r.choices[0]!.message.content!);
    assertEquals(typeof parsed.answer, "string");
    assertEquals(r.choices[0]!.finish_reason, "stop");
  });
});

Deno.test("logprobs cover the answer token by token, streamed and not", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const r = await openai.chat.completions.create({
      model: "m",
      messages: ask,
      max_tokens: 8,
      logprobs: true,
      top_logprobs: 2,
    });
    const content = r.choices[0]!.logprobs!.content!;
    assertEquals(content.map((t) => t.token).join(""), r.choices[0]!.message.content);
    assert(content.every((t) => t.logprob <= 0 && t.top_logprobs.length === 2));
    const stream = await openai.chat.completions.create({
      model: "m",
      messages: ask,
      max_tokens: 8,
      logprobs: true,
      stream: true,
    });
    const tokens: string[] = [];
    for await (const c of stream) {
      for (const t of c.choices[0]?.logprobs?.content ?? []) tokens.push(t.token);
    }
    assertEquals(tokens.join(""), r.choices[0]!.message.content);
  });
});

Deno.test("enable_thinking makes the model reason first, in reasoning_content", async () => {
  await withSimEngine(fast, async ({ url }) => {
    const chat = async (enable: boolean) => {
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          messages: ask,
          max_tokens: 20,
          chat_template_kwargs: { enable_thinking: enable },
        }),
      });
      return (await res.json()).choices[0].message;
    };
    const on = await chat(true);
    const off = await chat(false);
    assert(on.reasoning_content.length > 0);
    assertEquals(off.reasoning_content, undefined);
    assert(on.content.length > 0);
  });
});

Deno.test("rerank is offered only with --reranking, scores sorted and cut at top_n", async () => {
  const body = JSON.stringify({
    query: "green river",
    documents: ["a quiet market", "the green river bank", "river stones"],
    top_n: 2,
  });
  const post = (url: string) =>
    fetch(`${url}/v1/rerank`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
  await withSimEngine({ ...fast, reranking: true }, async ({ url }) => {
    const res = await post(url);
    assertEquals(res.status, 200);
    const r = await res.json();
    assertEquals(r.results.length, 2);
    assertEquals(r.results[0].index, 1);
    assert(r.results[0].relevance_score >= r.results[1].relevance_score);
    assert(r.usage.prompt_tokens > 0);
    assertEquals((await (await post(url)).json()).results, r.results, "deterministic");
  });
  await withSimEngine(fast, async ({ url }) => {
    const res = await post(url);
    assertEquals(res.status, 501);
    assertEquals((await res.json()).error.type, "not_supported_error");
  });
});
