/**
 * The limits page of an organisation, team or project. It reads the level through the admin API
 * (which decides who may, and gives its own and in-force values) and the levels above through
 * the same LimitsBook.effective the request path uses, so the page shows what admission holds.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { PortalDeps } from "./portal_deps.ts";
import { AppError } from "../../core/errors.ts";
import type { Effective, LimitSet, NumericLimit } from "../accounting/limits.ts";
import { canWrite } from "../tenancy/access.ts";
import type { Scope } from "../tenancy/tenancy.ts";
import type { AdminCall } from "./admin_call.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import type { Words } from "./i18n.ts";
import { LimitsPage, type TighterBelow } from "./pages/limits.tsx";
import { levelName } from "./pages/usage.tsx";
import { attempt, type Notice, page, readForm } from "./render.ts";

const dayMs = 86_400_000;
/** The limits the page shows as numbers, in its order. */
const shownLimits: NumericLimit[] = [
  "rpm",
  "tpm",
  "maxParallel",
  "budgetDayMicros",
  "budgetMonthMicros",
  "maxKeyTtlMs",
];

type Gate = (c: Context<AppEnv>) => Promise<{ ctx: PortalCtx; v: Viewer }>;

export function limitsPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { gate: Gate; call: AdminCall },
): void {
  const { gate, call } = io;
  const t = () => deps.people.tenancy;

  const nameOf = async (words: Words) => {
    const keys = new Map((await deps.keys.list()).map((k) => [k.id, k.name]));
    return (s: Scope): string => {
      if (s.kind === "global") return words.t("level_global");
      if (s.kind === "key") return words.t("level_key", { name: keys.get(s.id) ?? s.id });
      if (s.kind === "person") {
        return words.t("level_person_named", { name: t().people.get(s.id)?.username ?? s.id });
      }
      return levelName(deps, words, s);
    };
  };

  /** The levels right below, which may set tighter values of their own. */
  const childrenOf = async (scope: Scope): Promise<Scope[]> => {
    const tree = t();
    switch (scope.kind) {
      case "org":
        return [...tree.teams.values()].filter((x) => x.orgId === scope.id)
          .map((x) => ({ kind: "team", id: x.id }));
      case "team":
        return [
          ...[...tree.projects.values()].filter((p) => p.teamId === scope.id)
            .map((p): Scope => ({ kind: "project", id: p.id })),
          ...[...tree.people.values()].filter((p) => p.teamId === scope.id)
            .map((p): Scope => ({ kind: "person", id: p.id })),
        ];
      case "project":
        return (await deps.keys.list()).filter((k) => k.projectId === scope.id && !k.revokedAt)
          .map((k) => ({ kind: "key", id: k.id }));
      default:
        return [];
    }
  };

  const tighterBelow = async (
    scope: Scope,
    effective: Effective,
    name: (s: Scope) => string,
  ): Promise<TighterBelow[]> => {
    const out: TighterBelow[] = [];
    for (const child of await childrenOf(scope)) {
      const own = deps.people.limits.get(child);
      for (const limit of shownLimits) {
        const v = own[limit];
        const here = effective[limit]?.value;
        if (v !== null && (here === undefined || v < here)) {
          out.push({ level: name(child), limit, value: v });
        }
      }
    }
    return out;
  };

  const limitsPage = async (c: Context<AppEnv>, notice?: Notice) => {
    const { ctx, v } = await gate(c);
    const kind = c.req.param("kind") as "org" | "team" | "project";
    const id = c.req.param("id")!;
    // The admin API decides who may read this level (404 otherwise).
    const shown = await call(c, undefined, "GET", `/limits/${kind}/${id}`);
    const scope = shown.scope as Scope;
    const place = kind === "org"
      ? { orgId: id, teamId: null }
      : kind === "team"
      ? { orgId: t().team(id).orgId, teamId: id }
      : t().placeOfProject(id);
    const effective = shown.effective as Effective;
    const name = await nameOf(ctx.words);
    return await page(
      c,
      <LimitsPage
        ctx={ctx}
        viewer={v}
        view={{
          kind,
          id,
          level: name(scope),
          own: shown.limits as LimitSet,
          inherited: deps.people.limits.effective(t().chainAbove(scope)),
          effective,
          levelOf: name,
          below: await tighterBelow(scope, effective, name),
          canWrite: canWrite(v.actor, "limits", place) &&
            !(v.actor.teamId && kind !== "project") &&
            !(v.actor.role === "tenant_admin" && kind === "org"),
        }}
        {...(notice ? { notice } : {})}
      />,
      notice?.kind === "error" ? 400 : 200,
    );
  };

  app.get("/admin/limits/:kind{org|team|project}/:id", (c) => limitsPage(c));
  app.post("/admin/limits/:kind{org|team|project}/:id", async (c) => {
    const { ctx } = await gate(c);
    const form = await readForm(c);
    const num = (k: string, scale = 1) => {
      const raw = (form[k] ?? "").trim();
      if (!raw) return null;
      const n = Number(raw);
      if (!Number.isFinite(n) || n < 0) {
        throw new AppError("invalid_request", { detail: `${k} must be a number of 0 or more` }, k);
      }
      return Math.round(n * scale);
    };
    const r = await attempt(ctx, async () => {
      const models = (form.models ?? "").split(",").map((s) => s.trim()).filter(Boolean);
      return await call(
        c,
        form._csrf,
        "PATCH",
        `/limits/${c.req.param("kind")}/${c.req.param("id")}`,
        {
          rpm: num("rpm"),
          tpm: num("tpm"),
          max_parallel: num("max_parallel"),
          budget_day_micros: num("budget_day", 1_000_000),
          budget_month_micros: num("budget_month", 1_000_000),
          max_key_ttl_ms: num("key_days", dayMs),
          models: models.length ? models : null,
        },
      );
    });
    return await limitsPage(c, r.ok ? { kind: "ok", text: ctx.words.t("saved") } : r.notice);
  });
}
