/**
 * Judges: a catalog model given (or relieved of) the `judge` role, and the speed check that says
 * whether each judge keeps within the budget its policies give it.
 */
import { z } from "zod";
import { AppError } from "../../../core/errors.ts";
import { judgeFormatNames } from "../../../core/judge_formats.ts";
import type { AdminDeps } from "./admin_deps.ts";
import { JudgeAsker } from "../../guard/judge/ask_judge.ts";
import { budgetFor, checkJudge } from "../../guard/judge/judge_check.ts";
import type { CompiledPolicy } from "../../guard/compiled_policy.ts";
import { requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const roleBody = z.strictObject({ format: z.enum(judgeFormatNames).nullable() });
const checkBody = z.strictObject({
  model: z.string().min(1).optional(),
  /** Instead of the tightest budget among the policies that name the judge. */
  budget_ms: z.number().int().min(20).max(120_000).optional(),
  singles: z.number().int().min(1).max(20).optional(),
  burst: z.number().int().min(1).max(64).optional(),
});

/** Judges are the cluster's, as models are: administrators and operators only. */
const cluster = { orgId: null, teamId: null };

export function judgeRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "catalog" | "replicas" | "guardPolicies">,
): void {
  const asker = new JudgeAsker({ catalog: deps.catalog, replicas: deps.replicas });

  r.add({
    method: "post",
    path: "/models/:name{.+}/judge",
    tag: "models",
    summary: "Give a model the judge role in a guard-model family (format), or take it (null)",
    access: "administrator, operator",
    audit: {
      action: "model.judge",
      snapshot: (c) => deps.catalog.get(c.req.param("name") ?? "") ?? null,
    },
    body: roleBody,
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const name = c.req.param("name")!;
    const row = await deps.catalog.setJudge(name, body.format);
    if (!row) throw new AppError("model_not_found", { model: name }, "model");
    return c.json({ name: row.name, judge: row.judge });
  });

  r.add({
    method: "post",
    path: "/guard/judges/check",
    tag: "guard",
    summary:
      "Time judgments by each judge (or one) against its policies' budget: ok, tight or slow, with advice",
    access: "administrator, operator",
    body: checkBody,
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const judges = body.model
      ? [body.model]
      : deps.catalog.list().filter((m) => m.judge).map((m) => m.name);
    if (body.model) {
      const why = asker.formatOf(body.model);
      if (typeof why === "string") throw new AppError("invalid_request", { detail: why }, "model");
    }
    const policies = deps.guardPolicies.list().flatMap((p) => {
      const compiled = deps.guardPolicies.compiled(p.name);
      return compiled ? [compiled] : [] as CompiledPolicy[];
    });
    const opts = {
      ...(body.singles ? { singles: body.singles } : {}),
      ...(body.burst ? { burst: body.burst } : {}),
    };
    const data = [];
    for (const model of judges) {
      data.push(await checkJudge(asker, model, body.budget_ms ?? budgetFor(model, policies), opts));
    }
    return c.json({ data });
  });
}
