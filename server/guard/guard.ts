/**
 * The guardrails on the request path: `inspectInput` is dispatch's one step before routing, and
 * the pass it returns is the relay's one hook on the answer (server/guard/answer_guard.ts). The
 * verdicts go on the usage row, and the metrics count them from there.
 */
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Scope } from "../tenancy/tenancy.ts";
import { GuardPass } from "./guard_pass.ts";
import type { GuardPolicies } from "./policy_store.ts";
import { mapRequestTexts, requestText } from "./request_parts.ts";
import type { JudgeDeps } from "./judge/judge_step.ts";
import { askServices, asksServices } from "./service_calls.ts";

export interface GuardDeps {
  policies: Pick<GuardPolicies, "forChain">;
  /** The levels a key's request passes through, widest first. */
  chainOf: (key: ApiKeyInfo) => Scope[];
  /** The judge models policies ask (judge/judge_step.ts); absent: a judge rule never answers. */
  judges?: JudgeDeps;
}

export interface InspectedInput {
  /** The body the model is sent: the client's, or a copy with redactions. */
  body: Record<string, unknown>;
  /** The request's pass; undefined when no policy applies to the key. */
  pass: GuardPass | undefined;
}

/**
 * Runs the input side of every policy on the key's chain over every text of the body. A block
 * leaves `pass.blocked` set for the caller to record and answer.
 */
export async function inspectInput(
  deps: GuardDeps,
  key: ApiKeyInfo,
  body: Record<string, unknown>,
): Promise<InspectedInput> {
  const policies = deps.policies.forChain(deps.chainOf(key));
  if (policies.length === 0) return { body, pass: undefined };
  const pass = new GuardPass(policies);
  const checked = policies.some((p) => p.input)
    ? mapRequestTexts(body, (text) => pass.check(text, "input"))
    : body;
  // The services read what the model would: the redacted texts, never the client's values.
  if (!pass.blocked && asksServices(pass, "input")) {
    await askServices(pass, "input", requestText(checked));
  }
  return { body: pass.blocked ? body : checked, pass };
}

export { answerText, requestText } from "./request_parts.ts";
