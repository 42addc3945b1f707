/** `ctl guard`: guardrail policies, and what one does to a text without calling a model. */
import { UsageError } from "../../../core/command.ts";
import { arg, col, type Noun, printList, printOne, str } from "./client.ts";
import type { JudgeCheck } from "../../guard/judge/judge_check.ts";

interface Tried {
  blocked: { rule: string } | null;
  text: string | null;
  verdicts: { rule: string; action: string; silent?: boolean; reason?: string }[];
  latency_us: number;
}

function judgeCheckText(j: JudgeCheck): string {
  const singles = j.single_ms.map((t) => t === null ? "none" : `${t} ms`).join(", ");
  return [
    `${j.model}: ${j.verdict} against a ${j.budget_ms} ms budget`,
    `  one at a time: ${singles}`,
    `  ${j.burst.size} at once: ${j.burst.answered} answered in ${j.burst.wall_ms} ms (about ${j.per_second} judgments/s)`,
    ...(j.late ? [`  no verdict: ${j.late}`] : []),
    ...j.advice.map((a) => `  - ${a}`),
  ].join("\n");
}

export const guard: Noun = {
  name: "guard",
  verbs: {
    list: {
      help: `  guard list                                  Guardrail policies and where they apply`,
      run: async (ctx) => {
        const res = await ctx.api.get("guard/policies").json<
          { data: { name: string; scope: { kind: string; id: string }; apply_to: string }[] }
        >();
        const data = res.data.map((p) => ({
          name: p.name,
          level: p.scope.kind === "global" ? "global" : `${p.scope.kind} ${p.scope.id}`,
          apply_to: p.apply_to,
          rules: (p as unknown as { rules: unknown[] }).rules.length,
        }));
        return printList(ctx.json, { data }, [
          col("name", "Policy"),
          col("level", "Level"),
          col("apply_to", "Applies to"),
          col("rules", "Rules"),
        ]);
      },
    },
    show: {
      help: `  guard show POLICY                           One policy, in full (JSON)`,
      run: async (ctx) => {
        const name = arg(ctx, 0, "guard show needs a POLICY");
        const res = await ctx.api.get(`guard/policies/${encodeURIComponent(name)}`).json();
        return printOne(true, res, "");
      },
    },
    set: {
      help: `  guard set POLICY -f policy.json             Create or replace a policy from a file`,
      flags: { file: { type: "string", short: "f" } },
      run: async (ctx) => {
        const name = arg(ctx, 0, "guard set needs a POLICY");
        const file = str(ctx.values, "file");
        if (!file) throw new UsageError("guard set needs --file with the policy as JSON");
        let json: unknown;
        try {
          json = JSON.parse(await Deno.readTextFile(file));
        } catch (e) {
          throw new UsageError(`--file ${file}: ${(e as Error).message}`);
        }
        const res = await ctx.api.put(`guard/policies/${encodeURIComponent(name)}`, { json })
          .json<{ warnings?: string[] }>();
        const warned = (res.warnings ?? []).map((w) => `\nwarning: ${w}`).join("");
        return printOne(ctx.json, res, `Set the policy ${name}${warned}`);
      },
    },
    delete: {
      help: `  guard delete POLICY                         Remove a policy`,
      run: async (ctx) => {
        const name = arg(ctx, 0, "guard delete needs a POLICY");
        const res = await ctx.api.delete(`guard/policies/${encodeURIComponent(name)}`).json();
        return printOne(ctx.json, res, `Removed the policy ${name}`);
      },
    },
    judge: {
      help:
        `  guard judge check [MODEL] [--budget MS]     Time judgments by each judge (or MODEL): ok, tight or slow`,
      flags: { budget: { type: "string" } },
      run: async (ctx) => {
        if (ctx.args[0] !== "check") {
          throw new UsageError("guard judge check [MODEL] [--budget MS]");
        }
        const model = ctx.args[1];
        const budget = str(ctx.values, "budget");
        if (budget !== undefined && !/^\d+$/.test(budget)) {
          throw new UsageError("--budget is a whole number of milliseconds");
        }
        const json = {
          ...(model ? { model } : {}),
          ...(budget ? { budget_ms: Number(budget) } : {}),
        };
        const res = await ctx.api.post("guard/judges/check", { json }).json<
          { data: JudgeCheck[] }
        >();
        if (ctx.json) return printOne(true, res, "");
        if (res.data.length === 0) console.log("no model has the judge role");
        for (const j of res.data) console.log(judgeCheckText(j));
        return res.data.some((j) => j.verdict === "slow") ? 1 : 0;
      },
    },
    test: {
      help:
        `  guard test POLICY --text T [--output]       What a policy does to a text (no model is called)`,
      flags: { text: { type: "string" }, output: { type: "boolean" } },
      run: async (ctx) => {
        const name = arg(ctx, 0, "guard test needs a POLICY");
        const text = str(ctx.values, "text");
        if (text === undefined) throw new UsageError("guard test needs --text");
        const json = { text, direction: ctx.values.output === true ? "output" : "input" };
        const res = await ctx.api.post(`guard/policies/${encodeURIComponent(name)}/test`, { json })
          .json<Tried>();
        if (ctx.json) return printOne(true, res, "");
        console.log(res.blocked ? `blocked by rule ${res.blocked.rule}` : `passes as: ${res.text}`);
        for (const v of res.verdicts) {
          const why = v.silent ? " (the service did not answer)" : v.reason ? ` (${v.reason})` : "";
          console.log(`  ${v.action.padEnd(6)} ${v.rule}${why}`);
        }
        console.log(`checked in ${res.latency_us} µs`);
        return res.blocked ? 1 : 0;
      },
    },
  },
};
