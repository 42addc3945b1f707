/** Reading the parts of OpenAI-shaped JSON the router needs, without trusting their shape. */

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Tokens from an answer's usage. Cached prompt tokens come from OpenAI's
 * `usage.prompt_tokens_details.cached_tokens`, else llama.cpp's `timings.cache_n` or
 * `tokens_cached`, else what llama.cpp's timings show it did not recompute.
 */
export function readUsage(
  v: unknown,
): { promptTokens: number; completionTokens: number; cachedTokens: number } {
  const usage = isRecord(v) && isRecord(v.usage) ? v.usage : {};
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : undefined;
  const timings = isRecord(v) && isRecord(v.timings) ? v.timings : undefined;
  const cached = details?.cached_tokens ?? timings?.cache_n ??
    (isRecord(v) ? v.tokens_cached : undefined) ?? notRecomputed(usage, timings);
  return {
    promptTokens: n(usage.prompt_tokens),
    completionTokens: n(usage.completion_tokens),
    cachedTokens: n(cached),
  };
}

/**
 * llama.cpp builds whose usage has no cached count still report in `timings.prompt_n` the prompt
 * tokens they computed: the rest of the prompt came from the slot's cache.
 */
function notRecomputed(
  usage: Record<string, unknown>,
  timings: Record<string, unknown> | undefined,
): number | undefined {
  const prompt = usage.prompt_tokens;
  const computed = timings?.prompt_n;
  if (typeof prompt !== "number" || typeof computed !== "number") return undefined;
  return Math.max(0, prompt - computed);
}
