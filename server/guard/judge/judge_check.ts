/**
 * `ctl guard judge check`: times a judge as the request path will use it — three judgments one
 * after another, then a burst at once — against the budget its policies give it, and says ok,
 * tight or slow with what would help. The original system measured a ~280-token judgment at
 * 8.0 s on one core, 4.2 s on two, 2.3 s on four, against a 5 s budget: it is worth knowing
 * before the first refused request.
 */
import type { JudgeAsker } from "./ask_judge.ts";
import { defaultJudgeBudgetMs } from "./judge_rule.ts";
import type { CompiledPolicy } from "../compiled_policy.ts";

export interface JudgeCheck {
  model: string;
  budget_ms: number;
  /** ok: within half the budget (no hedge needed); tight: within it; slow: past it, or no verdict. */
  verdict: "ok" | "tight" | "slow";
  /** Each lone judgment's time in ms; null when it gave no verdict in the budget. */
  single_ms: (number | null)[];
  burst: { size: number; wall_ms: number; answered: number };
  /** Judgments a second it kept up with in the burst. */
  per_second: number;
  advice: string[];
  /** Why a judgment gave none, when one did not. */
  late?: string;
}

/** About 280 tokens of ordinary prose: the size of judgment the figures above are for. */
const sample = Array.from(
  { length: 14 },
  (_, i) =>
    `Paragraph ${
      i + 1
    }: the team met on Tuesday to review the quarterly plan, the budget for travel, and the schedule for the next release.`,
).join(" ");

const sampleTurns = [{ role: "user" as const, content: sample }];

export interface JudgeCheckOptions {
  singles?: number;
  burst?: number;
}

/** The tightest budget among the policies' judge rules naming `model`; the default when none. */
export function budgetFor(model: string, policies: readonly CompiledPolicy[]): number {
  const budgets = policies.flatMap((p) =>
    p.judges.filter((j) => j.model === model).map((j) => j.budget_ms ?? defaultJudgeBudgetMs)
  );
  return budgets.length ? Math.min(...budgets) : defaultJudgeBudgetMs;
}

export async function checkJudge(
  asker: Pick<JudgeAsker, "ask">,
  model: string,
  budgetMs: number,
  opts: JudgeCheckOptions = {},
): Promise<JudgeCheck> {
  const single_ms: (number | null)[] = [];
  let late: string | undefined;
  for (let i = 0; i < (opts.singles ?? 3); i++) {
    const o = await asker.ask(model, sampleTurns, budgetMs);
    single_ms.push(o.kind === "verdict" ? o.ms : null);
    if (o.kind === "late") late = o.why;
  }
  const size = opts.burst ?? 4;
  const t0 = performance.now();
  const burst = await Promise.all(
    Array.from({ length: size }, () => asker.ask(model, sampleTurns, budgetMs)),
  );
  const wall = Math.round(performance.now() - t0);
  const answered = burst.filter((o) => o.kind === "verdict").length;
  for (const o of burst) if (o.kind === "late") late = o.why;
  const times = [...single_ms, ...burst.map((o) => o.kind === "verdict" ? o.ms : null)];
  const verdict = times.some((t) => t === null || t > budgetMs)
    ? "slow"
    : times.some((t) => t! > budgetMs / 2)
    ? "tight"
    : "ok";
  return {
    model,
    budget_ms: budgetMs,
    verdict,
    single_ms,
    burst: { size, wall_ms: wall, answered },
    per_second: wall > 0 ? Math.round((answered / wall) * 10_000) / 10 : answered,
    advice: adviceFor(verdict),
    ...(late ? { late } : {}),
  };
}

function adviceFor(verdict: JudgeCheck["verdict"]): string[] {
  if (verdict === "ok") return [];
  const more = [
    "give each judge replica more cores (a judgment's time about halves with twice the cores, up to four)",
    "add a judge replica on another machine (hedged requests go there at half the budget)",
    "serve the judge on a GPU",
    "give the rule a longer budget_ms",
  ];
  return verdict === "slow"
    ? [...more, "or, where an unjudged request may pass, set fail: open"]
    : more;
}
