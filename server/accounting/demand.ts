/**
 * What a request may use, read once from its body: a rough prompt estimate and the answer it may
 * ask for. The tokens-per-minute check counts what the request can really use (the answer it asked
 * for, no more than the model can give); a budget holds the worst case (the model's most output
 * when the client names no limit).
 */
export interface Demand {
  /** About four characters a token: rough, corrected when the engine reports its usage. */
  prompt: number;
  /** `max_completion_tokens` or `max_tokens`, when given. */
  asked: number | null;
  askedField: "max_tokens" | "max_completion_tokens";
  /** The most one answer of the model can have, when the catalog says. */
  ceiling: number | null;
}

/** A rough count of a request's prompt tokens: about four characters a token. */
export function estimatePromptTokens(body: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify(body.messages ?? body.prompt ?? body.input ?? "").length / 4);
}

export function demandOf(body: Record<string, unknown>, ceiling?: number): Demand {
  const field = body.max_completion_tokens !== undefined ? "max_completion_tokens" : "max_tokens";
  const max = Number(body[field] ?? 0);
  return {
    prompt: estimatePromptTokens(body),
    asked: Number.isFinite(max) && max > 0 ? Math.ceil(max) : null,
    askedField: field,
    ceiling: ceiling ?? null,
  };
}

/** The answer's worst case: what was asked, capped by the model; the model's most when unasked. */
export function worstOutput(d: Demand): number {
  if (d.asked === null) return d.ceiling ?? 0;
  return d.ceiling === null ? d.asked : Math.min(d.asked, d.ceiling);
}

/** The tokens a request counts against tokens per minute on admission. */
export function tpmCount(d: Demand): number {
  return d.prompt + (d.asked === null ? 0 : worstOutput(d));
}
