/**
 * The request fields a trace records, read leniently: a field of the wrong type is left out,
 * never a reason to refuse the request (the engine decides what it accepts).
 */
export interface GenAiParams {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
}

export function genAiParams(body: Record<string, unknown>): GenAiParams {
  const num = (v: unknown) => typeof v === "number" && Number.isFinite(v) ? v : undefined;
  const maxTokens = num(body.max_tokens) ?? num(body.max_completion_tokens);
  const temperature = num(body.temperature);
  const topP = num(body.top_p);
  return {
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
  };
}
