/**
 * `truncation` on /v1/responses: a conversation (earlier turns through `previous_response_id`,
 * and this input) that no longer fits the model's context is, with `"auto"`, sent without its
 * oldest turns, whole turns at a time, until it fits; with `"disabled"` (the default) it is a 400,
 * as OpenAI's. The store keeps the whole conversation: truncation is what one request sends.
 * The size is the estimate admission uses (server/accounting/demand.ts), so the two agree.
 */
import { AppError } from "../../core/errors.ts";
import { estimatePromptTokens } from "../accounting/demand.ts";
import type { TranslatedResponseRequest } from "./request.ts";

type Json = Record<string, unknown>;

/**
 * The request translated with as much of `history` as fits `context` tokens (undefined: the
 * catalog does not say, and all is sent).
 */
export function fitToContext(
  req: Json,
  history: Json[],
  context: number | undefined,
  translate: (history: Json[]) => TranslatedResponseRequest,
): TranslatedResponseRequest {
  const mode = req.truncation ?? "disabled";
  if (mode !== "auto" && mode !== "disabled") {
    throw new AppError("invalid_request", {
      detail: "'truncation' must be auto or disabled",
    }, "truncation");
  }
  let kept = history;
  let t = translate(kept);
  if (context === undefined) return t;
  const output = typeof req.max_output_tokens === "number" ? req.max_output_tokens : 0;
  const need = () => estimatePromptTokens(t.body) + output;
  while (mode === "auto" && kept.length > 0 && need() > context) {
    kept = withoutOldestTurn(kept);
    t = translate(kept);
  }
  if (need() > context) {
    throw new AppError("invalid_request", {
      detail: `the input (about ${estimatePromptTokens(t.body)} tokens) and max_output_tokens ` +
        `(${output}) do not fit the model's context of ${context} tokens` +
        (mode === "auto" ? "" : '; truncation: "auto" sends it without its oldest turns'),
    }, "input");
  }
  return t;
}

/**
 * The items after the first turn: a turn runs from a user message to the next one, so a
 * function call is never sent without its output, nor an output without its call.
 */
function withoutOldestTurn(items: Json[]): Json[] {
  const next = items.findIndex((item, i) =>
    i > 0 && item.type === "message" && item.role === "user"
  );
  return next === -1 ? [] : items.slice(next);
}
