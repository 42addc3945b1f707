/**
 * Deterministic text and token counts. The same prompt always yields the same words, so tests can
 * compare runs and benchmarks are reproducible; nothing here knows about time or HTTP.
 */

// One string keeps the formatter from spreading the list over 64 lines.
const WORDS = (
  "the model token gateway cluster request answer simple quiet river stone light engine signal " +
  "window garden number paper music winter bright slow green north market bridge cloud forest " +
  "letter silver of and to in is for with on that it as was are by this from at we can will " +
  "every small large early late open careful steady route queue slot cache batch stream"
).split(" ");

/** FNV-1a over UTF-16 code units: cheap, stable across runs and platforms. */
export function hashText(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Spread a seed and a small integer (choice index, request seed) into an unrelated seed. */
export function mixSeed(seed: number, salt: number): number {
  let h = (seed ^ Math.imul(salt + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: a tiny PRNG returning floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tokenPattern = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** Words plus punctuation marks: a rough but stable stand-in for a tokenizer. May be 0. */
export function countTokens(text: string): number {
  return text.match(tokenPattern)?.length ?? 0;
}

/**
 * An endless run of tokens shaped like prose: capitalised sentences of 5 to 14 words ending in a
 * full stop, with the odd comma. Each word token carries its leading space, as real BPE tokens do,
 * so joining tokens gives the text and counting them gives completion_tokens.
 */
export function* tokenStream(seed: number): Generator<string, never> {
  const rand = prng(seed);
  let first = true;
  for (;;) {
    const length = 5 + Math.floor(rand() * 10);
    for (let i = 0; i < length; i++) {
      let word: string = WORDS[Math.floor(rand() * WORDS.length)]!;
      if (i === 0) word = word[0]!.toUpperCase() + word.slice(1);
      yield first ? word : ` ${word}`;
      first = false;
      if (i > 2 && i < length - 2 && rand() < 0.08) yield ",";
    }
    yield ".";
  }
}

/** Each prompt as a seed key and a token count; a flat list of token ids is one prompt. */
export function prompts(p: string | string[] | number[] | number[][]): PromptInfo[] {
  const text = (s: string) => ({ key: s, tokens: Math.max(1, countTokens(s)) });
  const ids = (t: number[]) => ({ key: t.join(","), tokens: t.length });
  if (typeof p === "string") return [text(p)];
  if (typeof p[0] === "number") return [ids(p as number[])];
  return (p as Array<string | number[]>).map((x) => typeof x === "string" ? text(x) : ids(x));
}

export interface PromptInfo {
  key: string;
  tokens: number;
}
