/**
 * Guardrail policies: listed, read, set (PUT, whole) and removed at any level of the tree, and
 * tried on a text without calling a model. Who may change a level's limits may change its
 * policies; every change is audited with the policy before and after.
 */
import { z } from "zod";
import { AppError } from "../../../core/errors.ts";
import type { AdminDeps } from "./admin_deps.ts";
import { GuardPass } from "../../guard/guard_pass.ts";
import {
  type GuardPolicy,
  policyBody,
  policyName,
  policyView,
  policyWarnings,
} from "../../guard/policy.ts";
import { askServices } from "../../guard/service_calls.ts";
import { type Actor, canRead, requireRead, requireWrite } from "../../tenancy/access.ts";
import { placeOfKey } from "../../tenancy/place_of_key.ts";
import type { Place, Scope } from "../../tenancy/tenancy.ts";
import type { AdminRegistry } from "./registry.ts";

const testBody = z.strictObject({
  text: z.string().max(1_000_000),
  direction: z.enum(["input", "output"]).optional(),
});

export function guardRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "guardPolicies" | "people" | "keys">,
): void {
  const policies = deps.guardPolicies;

  /** Where a scope sits in the tree; a scope that does not exist is 404 (or, for a new policy, 400). */
  const placeOf = async (scope: Scope): Promise<Place | undefined> => {
    const t = deps.people.tenancy;
    switch (scope.kind) {
      case "global":
        return { orgId: null, teamId: null };
      case "org":
        return t.orgs.has(scope.id) ? { orgId: scope.id, teamId: null } : undefined;
      case "team": {
        const x = t.teams.get(scope.id);
        return x ? { orgId: x.orgId, teamId: x.id } : undefined;
      }
      case "project":
        return t.projects.has(scope.id) ? t.placeOfProject(scope.id) : undefined;
      case "person":
        return t.people.has(scope.id) ? t.placeOfPerson(scope.id) : undefined;
      case "key": {
        const k = await deps.keys.get(scope.id);
        return k ? placeOfKey(deps, k) : undefined;
      }
    }
  };

  /** The policy named in the path, if the actor may see it; otherwise 404 either way. */
  const readable = async (actor: Actor, path: string, name: string): Promise<GuardPolicy> => {
    const p = policies.get(name);
    const place = p ? await placeOf(p.scope) : undefined;
    if (!p || !place) throw new AppError("not_found", { path });
    requireRead(actor, "limits", place, path);
    return p;
  };

  /** A level's policy is changed by who may change its limits; the global level is staff's. */
  const mayChange = (actor: Actor, place: Place, scope: Scope, path: string) => {
    requireWrite(actor, scope.kind === "global" ? "staff" : "limits", place, path);
    // Nobody loosens their own level: a tenant administrator changes only the levels below it.
    if (actor.role !== "administrator" && (scope.kind === "org" || scope.kind === "team")) {
      if (scope.kind === "org" || actor.teamId) throw new AppError("forbidden");
    }
  };

  const audit = (
    actor: Actor,
    action: string,
    name: string,
    orgId: string | null,
    b: unknown,
    a: unknown,
  ) => deps.people.audit.record(actor, action, { kind: "guard_policy", id: name, orgId }, b, a);

  r.add({
    method: "get",
    path: "/guard/policies",
    tag: "guard",
    summary: "Guardrail policies at the levels the caller may read",
    access: "whoever may read a level's limits",
  }, async (c, { actor }) => {
    const out = [];
    for (const p of policies.list()) {
      const place = await placeOf(p.scope);
      if (place && canRead(actor, "limits", place)) out.push(policyView(p));
    }
    out.sort((a, b) => a.name.localeCompare(b.name));
    return c.json({ data: out });
  });

  r.add({
    method: "get",
    path: "/guard/policies/:name",
    tag: "guard",
    summary: "One guardrail policy",
    access: "whoever may read the level it is attached to",
  }, async (c, { actor }) => {
    return c.json(policyView(await readable(actor, c.req.path, c.req.param("name")!)));
  });

  r.add({
    method: "put",
    path: "/guard/policies/:name",
    tag: "guard",
    summary:
      "Create or replace a guardrail policy (scope: global, org, team, project, person or key; rules: pattern, literal, max_chars, secrets, pii, judge, service; actions: block, redact, flag). An output service without stream: buffer_all is accepted with a warning: it can only flag a streamed answer",
    body: policyBody,
    access: "administrator; tenant administrators, for levels below their own",
  }, async (c, { actor, body }) => {
    const name = policyName.safeParse(c.req.param("name"));
    if (!name.success) {
      throw new AppError("invalid_request", { detail: name.error.issues[0]!.message }, "name");
    }
    const before = policies.get(name.data);
    if (before) {
      const place = await placeOf(before.scope);
      if (place) mayChange(actor, place, before.scope, c.req.path);
    }
    const place = await placeOf(body.scope);
    if (!place) {
      throw new AppError("invalid_request", {
        detail: `there is no ${body.scope.kind} '${body.scope.id}'`,
      }, "scope");
    }
    mayChange(actor, place, body.scope, c.req.path);
    const after = await policies.set(name.data, body);
    await audit(
      actor,
      before ? "guard_policy.replace" : "guard_policy.create",
      name.data,
      place.orgId,
      before ? policyView(before) : null,
      policyView(after),
    );
    const warnings = policyWarnings(body);
    return c.json(
      { ...policyView(after), ...(warnings.length ? { warnings } : {}) },
      before ? 200 : 201,
    );
  });

  r.add({
    method: "delete",
    path: "/guard/policies/:name",
    tag: "guard",
    summary: "Remove a guardrail policy",
    access: "administrator; tenant administrators, for levels below their own",
  }, async (c, { actor }) => {
    const p = await readable(actor, c.req.path, c.req.param("name")!);
    const place = (await placeOf(p.scope))!;
    mayChange(actor, place, p.scope, c.req.path);
    await policies.remove(p.name);
    await audit(actor, "guard_policy.delete", p.name, place.orgId, policyView(p), null);
    return c.json({ deleted: p.name });
  });

  r.add({
    method: "post",
    path: "/guard/policies/:name/test",
    tag: "guard",
    summary:
      "What a policy does to a text, without calling a model: the text the model would see and each verdict (never the matched text in a block)",
    body: testBody,
    access: "whoever may read the level it is attached to",
  }, async (c, { actor, body }) => {
    const p = await readable(actor, c.req.path, c.req.param("name")!);
    const pass = new GuardPass([policies.compiled(p.name)!]);
    const direction = body.direction ?? "input";
    const t0 = performance.now();
    const text = pass.check(body.text, direction);
    const micros = Math.round((performance.now() - t0) * 1000);
    // The outside services too, on the text as the model would see it: what the policy does.
    await askServices(pass, direction, text);
    return c.json({
      policy: p.name,
      direction,
      blocked: pass.blocked ? { rule: pass.blocked.rule } : null,
      text: pass.blocked ? null : text,
      verdicts: pass.verdicts.map((v) => ({
        rule: v.rule,
        action: v.action,
        ...(v.silent ? { silent: true } : {}),
        ...(v.reason ? { reason: v.reason } : {}),
      })),
      latency_us: micros,
    });
  });
}
