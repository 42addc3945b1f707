/**
 * What the guardrails cost a request: a 2 KB chat prompt through a pattern-and-PII policy on
 * input (`inspectInput`, as dispatch runs it) and the same text as a whole answer on output.
 * `deno bench -A bench/guard_bench.ts`; the README's figure comes from here (target: < 0.2 ms).
 */
import { inspectInput } from "../server/guard/guard.ts";
import { guardWholeAnswer } from "../server/guard/answer_guard.ts";
import { GuardPass } from "../server/guard/guard_pass.ts";
import { answer, body, compiled, deps, key } from "./guard_fixture.ts";

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
