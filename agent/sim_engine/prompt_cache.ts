/**
 * The simulated engine's prompt cache, modelled on llama-server's: each slot keeps the last prompt
 * it processed, a request whose prompt starts the same way skips recomputing that part, and a slot
 * taken by another conversation forgets it. A prompt is seen as its messages: chained hashes with
 * the token count up to each, so "starts the same way" means "the same first messages".
 */

export interface PromptPrefix {
  /** Hash of messages 0..i, chained. */
  readonly hashes: readonly number[];
  /** Prompt tokens up to and including message i. */
  readonly tokens: readonly number[];
}

export const emptyPrefix: PromptPrefix = { hashes: [], tokens: [] };

/** Builds a prefix from each message's hash and token count. */
export function promptPrefix(parts: readonly { hash: number; tokens: number }[]): PromptPrefix {
  const hashes: number[] = [];
  const tokens: number[] = [];
  let h = 0x811c9dc5;
  let n = 0;
  for (const p of parts) {
    h = Math.imul(h ^ p.hash, 0x01000193) >>> 0;
    n += p.tokens;
    hashes.push(h);
    tokens.push(n);
  }
  return { hashes, tokens };
}

/**
 * Tokens of `prompt` (of `total` tokens) already in a slot holding `held`. Like llama-server, at
 * least one token is always computed, so a repeated prompt still yields a first token.
 */
export function reusable(held: PromptPrefix, prompt: PromptPrefix, total: number): number {
  let i = 0;
  while (
    i < held.hashes.length && i < prompt.hashes.length && held.hashes[i] === prompt.hashes[i]
  ) {
    i++;
  }
  const shared = i === 0 ? 0 : prompt.tokens[i - 1]!;
  return Math.max(0, Math.min(shared, total - 1));
}
