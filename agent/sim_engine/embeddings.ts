/** POST /v1/embeddings: a deterministic unit vector per input (random or lexical), as floats or base64 float32. */
import type { Context } from "hono";
import type { Engine } from "./engine.ts";
import { hashText, prng, prompts } from "./generate.ts";
import { embeddingRequest, parseBody } from "./requests.ts";

export function embeddingHandler(engine: Engine) {
  return async (c: Context): Promise<Response> => {
    const parsed = await parseBody(c, embeddingRequest);
    if (!parsed.ok) return parsed.response;
    const req = parsed.data;
    const inputs = prompts(req.input);
    const base64 = req.encoding_format === "base64";
    const dims = req.dimensions ?? engine.embeddingDims;
    if (dims > engine.embeddingDims) {
      return c.json({
        error: {
          message: `dimensions must be at most ${engine.embeddingDims} for this model`,
          type: "invalid_request_error",
          param: "dimensions",
          code: null,
        },
      }, 400);
    }
    const data = inputs.map(({ key }, index) => {
      const full = engine.embeddingMode === "lexical"
        ? embedLexical(key, engine.embeddingDims)
        : embed(key, engine.embeddingDims);
      const v = truncated(full, dims);
      return { object: "embedding", index, embedding: base64 ? toBase64(v) : Array.from(v) };
    });
    const tokens = inputs.reduce((n, x) => n + x.tokens, 0);
    // Counted as prompt work at the engine's prompt speed, without making the caller wait.
    engine.counters.prompt(tokens, (tokens * 1000) / engine.promptTokensPerSecond);
    return c.json({
      object: "list",
      data,
      model: req.model ?? engine.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };
}

/** Same text, same vector; length 1 so cosine similarity is a plain dot product. */
export function embed(text: string, dims: number): Float32Array {
  const rand = prng(hashText(text));
  const v = new Float32Array(dims);
  let sum = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = rand() * 2 - 1;
    sum += v[i]! * v[i]!;
  }
  const norm = Math.sqrt(sum) || 1;
  for (let i = 0; i < dims; i++) v[i] = v[i]! / norm;
  return v;
}

/**
 * A hashed bag of words: each distinct word adds ±(1 + ln count) at its hashed place, so two texts'
 * cosine grows with the words they share. Words are lower-cased letter/digit runs; one-letter
 * words and a few English fillers are left out, as they would make every pair of texts near.
 */
export function embedLexical(text: string, dims: number): Float32Array {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (word.length < 2 || FILLERS.has(word)) continue;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const v = new Float32Array(dims);
  for (const [word, n] of counts) {
    const h = hashText(word);
    const i = h % dims;
    v[i] = (v[i] ?? 0) + (h & 0x80000000 ? -1 : 1) * (1 + Math.log(n));
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

const FILLERS = new Set(
  "the of and to in is for with on that it as was are by this from at an be or what how do does can"
    .split(" "),
);

/** A Matryoshka vector's first `dims` values, scaled back to length 1. */
function truncated(v: Float32Array, dims: number): Float32Array {
  if (dims >= v.length) return v;
  const out = v.slice(0, dims);
  const norm = Math.sqrt(out.reduce((n, x) => n + x * x, 0)) || 1;
  return out.map((x) => x / norm);
}

/** OpenAI's base64 format: the little-endian float32 bytes, base64-encoded. */
function toBase64(v: Float32Array): string {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  v.forEach((x, i) => view.setFloat32(i * 4, x, true));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
