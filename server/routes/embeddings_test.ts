/**
 * /v1/embeddings through the official OpenAI SDK against the real app: base64 (what the SDK asks
 * for by default, and decodes), float, `dimensions` where the engine serves them, and inputs
 * given as token arrays.
 */
import OpenAI, { BadRequestError } from "openai";
import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";

function client(h: Harness): OpenAI {
  return new OpenAI({
    baseURL: "http://llmgw.test/v1",
    apiKey: h.key,
    maxRetries: 0,
    fetch: async (url, init) => await h.app.request(String(url), init as RequestInit),
  });
}

const norm = (v: number[]) => Math.sqrt(v.reduce((n, x) => n + x * x, 0));
const near = (a: number, b: number, eps: number) =>
  assert(Math.abs(a - b) <= eps, `${a} is not within ${eps} of ${b}`);

Deno.test("embeddings: base64 and float give the same vectors; dimensions shortens them", async () => {
  const h = await startHarness();
  try {
    const openai = client(h);
    const b64 = await openai.embeddings.create({ model: "demo", input: ["a", "b"] });
    const raw = await h.v1("/embeddings", { model: "demo", input: "a", encoding_format: "base64" });
    assertEquals(typeof (await raw.json()).data[0].embedding, "string", "base64 on the wire");
    const floats = await openai.embeddings.create({
      model: "demo",
      input: ["a", "b"],
      encoding_format: "float",
    });
    assertEquals(b64.data.length, 2);
    b64.data[0]!.embedding.forEach((x, i) => near(x, floats.data[0]!.embedding[i]!, 1e-6));
    const short = await openai.embeddings.create({ model: "demo", input: "a", dimensions: 8 });
    assertEquals(short.data[0]!.embedding.length, 8);
    near(norm(short.data[0]!.embedding), 1, 1e-5);
    const full = floats.data[0]!.embedding.length;
    await assertRejects(
      () => openai.embeddings.create({ model: "demo", input: "a", dimensions: full + 1 }),
      BadRequestError,
    );
  } finally {
    await h.close();
  }
});

Deno.test("embeddings: arrays of token arrays are embedded one vector each", async () => {
  const h = await startHarness();
  try {
    const r = await client(h).embeddings.create({
      model: "demo",
      input: [[1, 2, 3], [4, 5], [1, 2, 3]],
      encoding_format: "float",
    });
    assertEquals(r.data.map((d) => d.index), [0, 1, 2]);
    assertEquals(r.data[0]!.embedding, r.data[2]!.embedding, "same tokens, same vector");
    assert(r.data[0]!.embedding.some((x, i) => x !== r.data[1]!.embedding[i]));
    assert(r.usage.prompt_tokens >= 8);
  } finally {
    await h.close();
  }
});
