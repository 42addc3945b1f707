/**
 * What the guardrails cost a request: a 2 KB chat prompt through a pattern-and-PII policy on
 * input (`inspectInput`, as dispatch runs it) and the same text as a whole answer on output.
 * `deno bench -A bench/guard_bench.ts`; the README's figure comes from here (target: < 0.2 ms).
 */
import { inspectInput } from "../server/guard/guard.ts";
import { guardWholeAnswer } from "../server/guard/answer_guard.ts";
import { compilePolicy } from "../server/guard/compiled_policy.ts";
import { GuardPass } from "../server/guard/guard_pass.ts";
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
const compiled = [compilePolicy(policy)];
const deps = { policies: { forChain: () => compiled }, chainOf: () => [] };
const key = { id: "k" } as ApiKeyInfo;

const sentence = "Please summarise the quarterly report for the board, with the totals by region. ";
const prompt = (sentence.repeat(26) + "Reply to ana@example.com.").slice(0, 2048);
const body = {
  model: "m",
  messages: [{ role: "system", content: "You are helpful." }, { role: "user", content: prompt }],
};
const answer = JSON.stringify({
  choices: [{ index: 0, message: { role: "assistant", content: prompt }, finish_reason: "stop" }],
});

Deno.bench(
  "input: 2 KB prompt, pattern + literal + secrets + PII (one email redacted)",
  async () => {
    const r = await inspectInput(deps, key, body);
    if (r.pass?.blocked) throw new Error("blocked");
  },
);

Deno.bench("output: the same 2 KB as a whole answer, checked and restored", () => {
  const pass = new GuardPass(compiled);
  guardWholeAnswer(pass, answer);
});
