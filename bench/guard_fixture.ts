/**
 * The guardrails' benchmark case: a 2 KB chat prompt and the same text as a whole answer, and a
 * pattern-and-PII policy on both sides (patterns, a literal list, secrets, every PII kind with
 * restore). Shared by bench/guard_bench.ts (wall time) and bench/guard_cpu.ts (CPU time).
 */
import { compilePolicy } from "../server/guard/compiled_policy.ts";
import type { GuardPolicy } from "../server/guard/policy.ts";
import type { ApiKeyInfo } from "../server/keys/keys.ts";

const policy: GuardPolicy = {
  name: "bench",
  scope: { kind: "global", id: "global" },
  applyTo: "both",
  restore: true,
  fail: "open",
  bufferAll: false,
  rules: [
    {
      name: "inject",
      kind: "pattern",
      action: "block",
      patterns: ["ignore (all )?(previous|prior) instructions", "you are now [a-z]+ mode"],
    },
    { name: "codenames", kind: "literal", action: "block", literals: ["project falcon", "x-17"] },
    { name: "keys", kind: "secrets", action: "block" },
    { name: "personal", kind: "pii", action: "redact" },
  ],
  updatedAt: 0,
};
export const compiled = [compilePolicy(policy)];
export const deps = { policies: { forChain: () => compiled }, chainOf: () => [] };
export const key = { id: "k" } as ApiKeyInfo;

const sentence = "Please summarise the quarterly report for the board, with the totals by region. ";
const prompt = (sentence.repeat(26) + "Reply to ana@example.com.").slice(0, 2048);
export const body = {
  model: "m",
  messages: [{ role: "system", content: "You are helpful." }, { role: "user", content: prompt }],
};
export const answer = JSON.stringify({
  choices: [{ index: 0, message: { role: "assistant", content: prompt }, finish_reason: "stop" }],
});
