/**
 * The judges' part of a request's checks. Input: after the synchronous rules (so a judge reads
 * what the model will, placeholders and all), each input policy's judge rules ask their judge at
 * once. Output: a whole (non-streamed) answer is judged as the model wrote it, after the question,
 * before the client sees it; a streamed answer can be stopped by a judge only when it is held back
 * whole (`stream: buffer_all`): then what it said is judged at its end (`judgeSaid`), and a stream
 * not held back is not judged. Each verdict lands on the
 * request's pass; a block (unsafe, or no verdict under `fail: closed`) stops the request or answer
 * as any rule's block does.
 */
import type { JudgeTurn } from "../../../core/judge_formats.ts";
import type { GuardPass } from "../guard_pass.ts";
import { answerText, requestText } from "../request_parts.ts";
import type { JudgeAsker, JudgeOutcome } from "./ask_judge.ts";
import { defaultJudgeBudgetMs, type JudgeRule } from "./judge_rule.ts";

export interface JudgeDeps {
  asker: Pick<JudgeAsker, "ask">;
  /** Each judgment's wait, by model and outcome, for the metrics. */
  judged: (model: string, outcome: "safe" | "unsafe" | "late", seconds: number) => void;
  /** Told once per judgment that gave no verdict (never the text). */
  late: (model: string, why: string) => void;
}

/** What a pass keeps for judging its answer: the judges, and the question the answer is to. */
export interface AnswerJudging {
  deps: JudgeDeps | undefined;
  question: string;
}

type Ask = { policy: string; rule: JudgeRule };

export async function judgeInput(
  deps: JudgeDeps | undefined,
  pass: GuardPass,
  body: Record<string, unknown>,
): Promise<void> {
  if (pass.blocked || !pass.policies.some((p) => p.judges.length)) return;
  const question = requestText(body);
  if (pass.policies.some((p) => p.output && p.judges.length)) pass.judging = { deps, question };
  if (question === "") return;
  await judge(deps, pass, asksOf(pass, "input"), [{ role: "user", content: question }]);
}

/** A whole answer's body (JSON text, as the model wrote it), judged by the output policies' judges. */
export async function judgeAnswer(pass: GuardPass, answer: string): Promise<void> {
  const judging = pass.judging;
  if (!judging || pass.blocked) return;
  const text = answerBodyText(answer);
  if (text === "") return;
  await judge(judging.deps, pass, asksOf(pass, "output"), [
    { role: "user", content: judging.question },
    { role: "assistant", content: text },
  ]);
}

/** What a held-back stream said, judged as a whole answer is, before any of it is sent. */
export async function judgeSaid(pass: GuardPass, said: string): Promise<void> {
  const judging = pass.judging;
  if (!judging || pass.blocked || said === "") return;
  await judge(judging.deps, pass, asksOf(pass, "output"), [
    { role: "user", content: judging.question },
    { role: "assistant", content: said },
  ]);
}

function asksOf(pass: GuardPass, side: "input" | "output"): Ask[] {
  return pass.policies.flatMap((p) =>
    p[side] ? p.judges.map((rule) => ({ policy: p.name, rule })) : []
  );
}

async function judge(
  deps: JudgeDeps | undefined,
  pass: GuardPass,
  asks: Ask[],
  turns: JudgeTurn[],
): Promise<void> {
  if (asks.length === 0) return;
  const outcomes = await Promise.all(asks.map(({ rule }) => ask(deps, rule, turns)));
  asks.forEach(({ policy, rule }, i) => recordOutcome(pass, policy, rule, outcomes[i]!));
}

/** A whole answer's body (JSON text) as the judge reads it; "" when it is not an answer. */
function answerBodyText(answer: string): string {
  let json: unknown;
  try {
    json = JSON.parse(answer);
  } catch {
    return "";
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "";
  return answerText(json as Record<string, unknown>);
}

async function ask(deps: JudgeDeps | undefined, rule: JudgeRule, turns: JudgeTurn[]) {
  if (!deps) return { kind: "late", ms: 0, why: "no judges on this router" } as const;
  const out = await deps.asker.ask(rule.model, turns, rule.budget_ms ?? defaultJudgeBudgetMs);
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
