/**
 * What a request cost, in micro-units of currency, from per-1,000-token prices. Always rounded
 * up: rounding down would make a stream of tiny requests free, which is exactly the traffic a
 * quota exists to bound. Cached prompt tokens are counted within prompt tokens (as OpenAI reports
 * them), clamped into [0, prompt] (more is an engine's miscount, not a refund), and charged at the
 * cached price, or the prompt price when that is 0.
 */
export interface Prices {
  pricePrompt: number;
  pricePromptCached: number;
  priceCompletion: number;
}

export function costMicros(
  p: Prices,
  promptTokens: number,
  cachedTokens: number,
  completionTokens: number,
): number {
  const prompt = Math.max(0, promptTokens);
  const cached = Math.min(Math.max(0, cachedTokens), prompt);
  const cachedRate = p.pricePromptCached || p.pricePrompt;
  const promptCost = Math.ceil(((prompt - cached) * p.pricePrompt + cached * cachedRate) / 1000);
  return promptCost + Math.ceil((Math.max(0, completionTokens) * p.priceCompletion) / 1000);
}
