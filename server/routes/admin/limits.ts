/** Limits at each level: read (own and effective), set partially (PATCH) or wholly (PUT). */
import { z } from "zod";
import type { PeopleServices } from "../../tenancy/services.ts";
import type { KeyService } from "../../keys/keys.ts";
import { AppError } from "../../../core/errors.ts";
import type { LimitPatch } from "../../accounting/limits.ts";
import { type Actor, requireRead, requireWrite } from "../../tenancy/access.ts";
import type { Place, Scope, ScopeKind } from "../../tenancy/tenancy.ts";
import { placeOfKey } from "../../tenancy/place_of_key.ts";
import type { AdminRegistry } from "./registry.ts";

const count = z.number().int().min(0).nullable().optional();
export const limitsBody = z.strictObject({
  rpm: count,
  tpm: count,
  budget_day_micros: count,
  budget_month_micros: count,
  budget_day_tokens: count,
  budget_month_tokens: count,
  models: z.array(z.string().min(1).max(200)).max(100).nullable().optional(),
  tools: z.array(z.string().min(1).max(200)).max(100).nullable().optional(),
  max_key_ttl_ms: z.number().int().min(60_000).nullable().optional(),
  max_parallel: z.number().int().min(1).nullable().optional(),
  weight: z.number().int().min(1).max(1000).nullable().optional(),
  /** The answer cache: on or off at this level (null inherits). */
  cache: z.boolean().nullable().optional(),
  /** Also cache requests sampled above temperature 0 (or with none given). */
  cache_temperature: z.boolean().nullable().optional(),
  /** Reuse the answer to a similar question from this cosine similarity (0–1]. */
  cache_similar: z.number().gt(0).max(1).nullable().optional(),
});
type LimitsBody = z.infer<typeof limitsBody>;

const fields: [keyof LimitsBody, keyof LimitPatch][] = [
  ["rpm", "rpm"],
  ["tpm", "tpm"],
  ["budget_day_micros", "budgetDayMicros"],
  ["budget_month_micros", "budgetMonthMicros"],
  ["budget_day_tokens", "budgetDayTokens"],
  ["budget_month_tokens", "budgetMonthTokens"],
  ["models", "models"],
  ["tools", "tools"],
  ["max_key_ttl_ms", "maxKeyTtlMs"],
  ["max_parallel", "maxParallel"],
  ["weight", "weight"],
  ["cache", "cache"],
  ["cache_temperature", "cacheTemperature"],
];

function toPatch(body: LimitsBody): LimitPatch {
  const out: Record<string, unknown> = {};
  for (const [from, to] of fields) if (body[from] !== undefined) out[to] = body[from];
  // Kept in thousandths: the store's numbers are whole.
  if (body.cache_similar !== undefined) {
    out.cacheSimilarPermille = body.cache_similar === null
      ? null
      : Math.round(body.cache_similar * 1000);
  }
  return out as LimitPatch;
}

const kinds = ["global", "org", "team", "project", "person", "key"] as const;

export function limitsRoutes(
  r: AdminRegistry,
  deps: { people: PeopleServices; keys: Pick<KeyService, "get"> },
): void {
  const p = () => deps.people;

  const placeOf = async (scope: Scope, path: string): Promise<Place> => {
    const t = p().tenancy;
    const missing = () => new AppError("not_found", { path });
    switch (scope.kind) {
      case "global":
        return { orgId: null, teamId: null };
      case "org":
        if (!t.orgs.has(scope.id)) throw missing();
        return { orgId: scope.id, teamId: null };
      case "team": {
        const x = t.teams.get(scope.id);
        if (!x) throw missing();
        return { orgId: x.orgId, teamId: x.id };
      }
      case "project":
        if (!t.projects.has(scope.id)) throw missing();
        return t.placeOfProject(scope.id);
      case "person":
        if (!t.people.has(scope.id)) throw missing();
        return t.placeOfPerson(scope.id);
      case "key": {
        const k = await deps.keys.get(scope.id);
        if (!k) throw missing();
        return placeOfKey(deps, k);
      }
    }
  };

  const scopeOf = (c: { req: { param(n: string): string | undefined } }): Scope => {
    const kind = c.req.param("kind") as ScopeKind;
    if (!kinds.includes(kind)) {
      throw new AppError(
        "invalid_request",
        { detail: `kind must be one of ${kinds.join(", ")}` },
        "kind",
      );
    }
    return { kind, id: kind === "global" ? "global" : c.req.param("id")! };
  };

  /** A tenant administrator sets limits below their own level, never on it: nobody raises their own ceiling. */
  const guardLevel = (actor: Actor, scope: Scope) => {
    if (actor.role === "administrator") return;
    if (scope.kind === "org" || (actor.teamId && scope.kind === "team")) {
      throw new AppError("forbidden");
    }
  };

  const chainOf = async (scope: Scope): Promise<Scope[]> => {
    if (scope.kind === "key") {
      const k = await deps.keys.get(scope.id);
      return p().tenancy.chain(k!);
    }
    return scope.kind === "global" ? [scope] : [...p().tenancy.chainAbove(scope), scope];
  };

  const show = async (scope: Scope) => ({
    scope,
    limits: p().limits.get(scope),
    effective: p().limits.effective(await chainOf(scope)),
    /** The answer cache as this level's requests get it. */
    cache: p().limits.cachePolicy(await chainOf(scope)),
    /** What the budgets' micro-units are of. */
    currency: p().prices.currency,
  });

  r.add({
    method: "get",
    path: "/limits/:kind/:id",
    tag: "limits",
    summary:
      "A level's own limits and the effective ones (kind: global, org, team, project, person, key; id 'global' for global)",
    access: "whoever may read the level",
  }, async (c, { actor }) => {
    const scope = scopeOf(c);
    requireRead(actor, "limits", await placeOf(scope, c.req.path), c.req.path);
    return c.json(await show(scope));
  });

  for (const method of ["patch", "put"] as const) {
    r.add({
      method,
      path: "/limits/:kind/:id",
      tag: "limits",
      summary: method === "patch"
        ? "Change only the limits given (null clears one back to inherited)"
        : "Replace the level's whole set of limits (anything not given is cleared)",
      body: limitsBody,
      access: "administrator; tenant administrators, for levels below their own",
    }, async (c, { actor, body }) => {
      const scope = scopeOf(c);
      requireWrite(actor, "limits", await placeOf(scope, c.req.path), c.req.path);
      guardLevel(actor, scope);
      // Every other limit only narrows; a weight takes share from other tenants' projects.
      if (body.weight !== undefined && actor.role !== "administrator") {
        throw new AppError("forbidden");
      }
      if (body.weight != null && scope.kind !== "project") {
        throw new AppError("invalid_request", {
          detail: "weight is a project's share of a busy model: set it on a project",
        }, "weight");
      }
      const before = p().limits.get(scope);
      const after = await p().limits.set(scope, toPatch(body), method === "put");
      const orgId = (await placeOf(scope, c.req.path)).orgId;
      await p().audit.record(
        actor,
        `limits.${method === "put" ? "replace" : "update"}`,
        { kind: scope.kind, id: scope.id, orgId },
        before,
        after,
      );
      return c.json(await show(scope));
    });
  }
}
