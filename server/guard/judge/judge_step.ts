/**
 * The judges' part of a request's input check: after the synchronous rules (so a judge reads
 * what the model will, placeholders and all), each policy's judge rules ask their judge at
 * once, and each verdict lands on the request's pass. A block (unsafe, or no verdict under
 * `fail: closed`) stops the request as any rule's block does.
 */
import type { GuardPass } from "../guard_pass.ts";
import { mapRequestTexts } from "../request_parts.ts";
import type { JudgeAsker, JudgeOutcome } from "./ask_judge.ts";
import { defaultJudgeBudgetMs, type JudgeRule } from "./judge_rule.ts";

export interface JudgeDeps {
  asker: Pick<JudgeAsker, "ask">;
  /** Each judgment's wait, by model and outcome, for the metrics. */
  judged: (model: string, outcome: "safe" | "unsafe" | "late", seconds: number) => void;
  /** Told once per judgment that gave no verdict (never the text). */
  late: (model: string, why: string) => void;
}

export async function judgeInput(
  deps: JudgeDeps | undefined,
  pass: GuardPass,
  body: Record<string, unknown>,
): Promise<void> {
  const asks = pass.policies.flatMap((p) =>
    p.input ? p.judges.map((rule) => ({ policy: p.name, rule })) : []
  );
  if (asks.length === 0 || pass.blocked) return;
  const text = requestText(body);
  if (text === "") return;
  const outcomes = await Promise.all(asks.map(({ rule }) => ask(deps, rule, text)));
  asks.forEach(({ policy, rule }, i) => recordOutcome(pass, policy, rule, outcomes[i]!));
}

/** Every text of the request, as one turn: the judge reads the whole of what the model is sent. */
function requestText(body: Record<string, unknown>): string {
  const texts: string[] = [];
  mapRequestTexts(body, (t) => {
    if (t.trim()) texts.push(t);
    return t;
  });
  return texts.join("\n\n");
}

async function ask(deps: JudgeDeps | undefined, rule: JudgeRule, text: string) {
  if (!deps) return { kind: "late", ms: 0, why: "no judges on this router" } as const;
  const out = await deps.asker.ask(rule.model, text, rule.budget_ms ?? defaultJudgeBudgetMs);
  const outcome = out.kind === "late" ? "late" : out.verdict.unsafe ? "unsafe" : "safe";
  deps.judged(rule.model, outcome, out.ms / 1000);
  if (out.kind === "late") deps.late(rule.model, out.why);
  return out;
}

/** Unsafe: the rule's action. No verdict: the rule's `fail` (closed, the default, blocks). Safe: nothing. */
function recordOutcome(pass: GuardPass, policy: string, rule: JudgeRule, out: JudgeOutcome): void {
  const latencyUs = out.ms * 1000;
  if (out.kind === "verdict") {
    if (out.verdict.unsafe) {
      pass.record({ policy, rule: rule.name, action: rule.action, latencyUs });
    }
    return;
  }
  const fail = rule.fail ?? "closed";
  pass.record({
    policy,
    rule: rule.name,
    action: fail === "closed" ? "block" : "flag",
    latencyUs,
    fail,
  });
}
