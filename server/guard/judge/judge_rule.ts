/**
 * The `judge` rule: a guard model of the catalog (one with the `judge` role) reads the request
 * and says whether it is safe, within `budget_ms`; `fail` says what a request whose judge did not
 * answer in time gets. Declared here, beside the guard's other rule kinds in policy.ts.
 */
import { z } from "zod";

/** What a judge gets when no budget is given: the original system's "5 s budget". */
export const defaultJudgeBudgetMs = 5000;

export function judgeRuleSchema<N extends z.ZodType<string>>(ruleName: N) {
  return z.strictObject({
    name: ruleName,
    kind: z.literal("judge"),
    // A verdict is about the whole text: nothing to redact.
    action: z.enum(["block", "flag"]),
    /** The catalog model that judges; it must have the `judge` role. */
    model: z.string().min(1).max(128),
    /** How long the request waits for a verdict; a second replica is asked at half of it. */
    budget_ms: z.number().int().min(20).max(120_000).optional(),
    /**
     * `closed` (the default): a request the judge could not read in time is refused (503).
     * `open`: it goes on, and the verdict records that it was not judged.
     */
    fail: z.enum(["open", "closed"]).optional(),
  });
}

export interface JudgeRule {
  name: string;
  kind: "judge";
  action: "block" | "flag";
  model: string;
  budget_ms?: number | undefined;
  fail?: "open" | "closed" | undefined;
}
