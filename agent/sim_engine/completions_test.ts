import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { withSimEngine } from "./with_sim_engine.ts";

const fast = { tokensPerSecond: 5000 };

Deno.test("a text completion has OpenAI's shape, streamed or not", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const r = await openai.completions.create({
      model: "m",
      prompt: "Once upon a time",
      max_tokens: 9,
    });
    assert(r.id.startsWith("cmpl-"));
    assertEquals(r.object, "text_completion");
    assertEquals(r.model, "m");
    assertEquals(r.choices[0]!.finish_reason, "length");
    assertEquals(r.usage, { prompt_tokens: 4, completion_tokens: 9, total_tokens: 13 });
    const stream = await openai.completions.create({
      model: "m",
      prompt: "Once upon a time",
      max_tokens: 9,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let last;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? "";
      last = chunk;
    }
    assertEquals(text, r.choices[0]!.text);
    assertEquals(last?.usage, r.usage);
  });
});

Deno.test("several prompts give one choice each, in order", async () => {
  await withSimEngine(fast, async ({ openai }) => {
    const r = await openai.completions.create({ model: "m", prompt: ["a", "b c"], max_tokens: 5 });
    assertEquals(r.choices.map((c) => c.index), [0, 1]);
    const alone = await openai.completions.create({ model: "m", prompt: "b c", max_tokens: 5 });
    assertEquals(r.choices[1]!.text, alone.choices[0]!.text);
    assertEquals(r.usage?.prompt_tokens, 3);
  });
});

Deno.test("embeddings have the configured length and unit norm, and are deterministic", async () => {
  await withSimEngine({ ...fast, embeddingDims: 32 }, async ({ openai, url }) => {
    const r = await openai.embeddings.create({ model: "e", input: ["first text", "second"] });
    assertEquals(r.data.length, 2);
    assertEquals(r.model, "e");
    assertEquals(r.usage.prompt_tokens, 3);
    for (const { embedding } of r.data) {
      assertEquals(embedding.length, 32);
      const norm = Math.sqrt(embedding.reduce((s, x) => s + x * x, 0));
      assert(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    }
    // The SDK asks for base64 by default; plain floats must decode to the same vector.
    const res = await fetch(`${url}/v1/embeddings`, {
      method: "POST",
      body: JSON.stringify({ input: "first text", encoding_format: "float" }),
    });
    const floats = (await res.json()).data[0].embedding as number[];
    assertEquals(floats.map((x) => Math.fround(x)), Array.from(r.data[0]!.embedding));
  });
});

Deno.test("lexical embeddings put texts that share words nearer than texts that do not", async () => {
  await withSimEngine(
    { ...fast, embeddingDims: 256, embeddingMode: "lexical" },
    async ({ openai }) => {
      const texts = [
        "How do I rotate an API key for my project?",
        "Rotate the project API key from the portal",
        "Which GPU cards does the cluster have free?",
      ];
      const r = await openai.embeddings.create({ model: "e", input: texts });
      const [a, b, c] = r.data.map((d) => d.embedding);
      const cos = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);
      assert(cos(a!, b!) > 0.5, `neighbours ${cos(a!, b!)}`);
      assert(cos(a!, c!) < 0.2, `strangers ${cos(a!, c!)}`);
      assert(cos(a!, b!) > cos(a!, c!) + 0.3);
      // Random mode (the default) keeps texts apart however many words they share.
      await withSimEngine({ ...fast, embeddingDims: 256 }, async ({ openai: random }) => {
        const q = await random.embeddings.create({ model: "e", input: texts.slice(0, 2) });
        const [x, y] = q.data.map((d) => d.embedding);
        assert(cos(x!, y!) < 0.3, `random ${cos(x!, y!)}`);
      });
    },
  );
});

Deno.test("the model list names the configured model", async () => {
  await withSimEngine({ model: "tiny-sim" }, async ({ openai }) => {
    const list = [];
    for await (const m of openai.models.list()) list.push(m);
    assertEquals(list.length, 1);
    assertEquals(list[0]!.id, "tiny-sim");
    assertEquals(list[0]!.object, "model");
    assertEquals(list[0]!.owned_by, "llmgw-sim");
  });
});
