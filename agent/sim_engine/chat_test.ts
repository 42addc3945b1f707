import {
  deepStrictEqual as assertEquals,
  notDeepStrictEqual as assertNotEquals,
  ok as assert,
} from "node:assert/strict";
import { withSimEngine } from "./with_sim_engine.ts";

const fast = { tokensPerSecond: 5000 };
const hello = [{ role: "user" as const, content: "Say hello to the gateway." }];

Deno.test("a chat completion has OpenAI's shape and echoes the requested model", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const r = await openai.chat.completions.create({
      model: "my-model",
      messages: hello,
      max_tokens: 12,
    });
    assert(r.id.startsWith("chatcmpl-"));
    assertEquals(r.object, "chat.completion");
    assertEquals(r.model, "my-model");
    assertEquals(r.choices.length, 1);
    assertEquals(r.choices[0]!.message.role, "assistant");
    assert((r.choices[0]!.message.content ?? "").length > 0);
    assertEquals(r.choices[0]!.finish_reason, "length");
    assertEquals(r.usage?.completion_tokens, 12);
    assert((r.usage?.prompt_tokens ?? 0) > 0);
    assertEquals(r.usage?.total_tokens, r.usage!.prompt_tokens + 12);
  });
});

Deno.test("a streamed chat carries the same text and usage as the non-streamed one", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const whole = await openai.chat.completions.create({
      model: "m",
      messages: hello,
      max_tokens: 30,
    });
    const stream = await openai.chat.completions.create({
      model: "m",
      messages: hello,
      max_tokens: 30,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    const chunks = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    const last = chunks.at(-1)!;
    assertEquals(last.choices, []);
    assertEquals(last.usage, whole.usage);
    assert(chunks.slice(0, -1).every((c) => c.usage === null));
    assertEquals(chunks[0]!.choices[0]!.delta.role, "assistant");
    assertEquals(text, whole.choices[0]!.message.content);
    assertEquals(finish, "length");
  });
});

Deno.test("the same request gives the same answer and a different prompt another", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const ask = (content: string) =>
      openai.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content }],
        max_tokens: 20,
      }).then((r) => r.choices[0]!.message.content);
    const a = await ask("What is a slot?");
    assertEquals(await ask("What is a slot?"), a);
    assertNotEquals(await ask("What is a queue?"), a);
  });
});

Deno.test("a stop string ends the answer before it, streamed or not", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const base = await openai.chat.completions.create({
      model: "m",
      messages: hello,
      max_tokens: 40,
    });
    const full = base.choices[0]!.message.content!;
    // A word from the middle of the unstopped answer, so the stop is sure to occur.
    const stop = full.split(" ")[5]!;
    const cut = full.slice(0, full.indexOf(stop));
    const stopped = await openai.chat.completions.create({
      model: "m",
      messages: hello,
      max_tokens: 40,
      stop: [stop],
    });
    assertEquals(stopped.choices[0]!.message.content, cut);
    assertEquals(stopped.choices[0]!.finish_reason, "stop");
    assert(stopped.usage!.completion_tokens < 40);
    const stream = await openai.chat.completions.create({
      model: "m",
      messages: hello,
      max_tokens: 40,
      stop: stop,
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    assertEquals(text, cut);
  });
});

Deno.test("n choices are generated side by side and differ from each other", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const r = await openai.chat.completions.create({
      model: "m",
      messages: hello,
      max_tokens: 10,
      n: 3,
    });
    assertEquals(r.choices.map((c) => c.index), [0, 1, 2]);
    assertEquals(new Set(r.choices.map((c) => c.message.content)).size, 3);
    assertEquals(r.usage?.completion_tokens, 30);
  });
});

Deno.test("a user message starting echo: is answered with the rest of itself", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const text = "**bold**\n\n```js\nconst x = 1;\n```\n";
    const r = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: `echo: ${text}` }],
      max_tokens: 100,
    });
    assertEquals(r.choices[0]!.message.content, text);
    const plain = await openai.chat.completions.create({ model: "m", messages: hello });
    assert(!(plain.choices[0]!.message.content ?? "").includes("echo"));
  });
});
