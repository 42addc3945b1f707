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

/** Tokens from an answer's usage; cached prompt tokens as `cachedPromptTokens` reads them. */
export function readUsage(
  v: unknown,
): { promptTokens: number; completionTokens: number; cachedTokens: number } {
  const usage = usageObjectOf(v) ?? {};
  if (usage.input_tokens !== undefined || usage.output_tokens !== undefined) {
    // The Responses API's shape (an outside provider that serves it itself).
    const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
    return {
      promptTokens: count(usage.input_tokens) ?? 0,
      completionTokens: count(usage.output_tokens) ?? 0,
      cachedTokens: count(details.cached_tokens) ?? 0,
    };
  }
  return {
    promptTokens: count(usage.prompt_tokens) ?? 0,
    completionTokens: count(usage.completion_tokens) ?? 0,
    cachedTokens: cachedPromptTokens(v) ?? 0,
  };
}

/**
 * An answer's usage object: its own, or its response's (a Responses answer, whole or the
 * response.completed event of its stream).
 */
export function usageObjectOf(v: unknown): Record<string, unknown> | undefined {
  if (!isRecord(v)) return undefined;
  if (isRecord(v.usage)) return v.usage;
  return isRecord(v.response) && isRecord(v.response.usage) ? v.response.usage : undefined;
}

/**
 * Prompt tokens the engine took from its cache, or undefined when the answer does not say. OpenAI
 * (and vLLM) say `usage.prompt_tokens_details.cached_tokens`; newer llama.cpp builds
 * `timings.cache_n`. Older ones (the 2025-02 build) have neither, and their `tokens_cached` is the
 * slot's whole past, not the prefix reused, so it is not read; there the prompt tokens the engine
 * did not process, `usage.prompt_tokens - timings.prompt_n`, are the cached ones (a repeated
 * prompt is processed as 1 token).
 */
export function cachedPromptTokens(v: unknown): number | undefined {
  if (!isRecord(v)) return undefined;
  const usage = isRecord(v.usage) ? v.usage : {};
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const timings = isRecord(v.timings) ? v.timings : {};
  const stated = count(details.cached_tokens) ?? count(timings.cache_n);
  if (stated !== undefined) return stated;
  const prompt = count(usage.prompt_tokens);
  const processed = count(timings.prompt_n);
  if (prompt === undefined || processed === undefined) return undefined;
  return Math.max(0, prompt - processed);
}

function count(x: unknown): number | undefined {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : undefined;
}
