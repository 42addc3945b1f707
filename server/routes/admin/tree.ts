/** Organisations, teams and projects. */
import { z } from "zod";
import type { PeopleServices } from "../../tenancy/services.ts";
import { AppError } from "../../../core/errors.ts";
import { canRead, requireRead, requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const named = z.strictObject({ name: z.string().min(1).max(63) });

export function treeRoutes(r: AdminRegistry, deps: { people: PeopleServices }): void {
  const t = () => deps.people.tenancy;
  const audit = () => deps.people.audit;

  r.add({
    method: "get",
    path: "/orgs",
    tag: "tree",
    summary: "List organisations",
    access: "anyone, their own",
  }, (c, { actor }) =>
    c.json({
      data: [...t().orgs.values()].filter((o) =>
        canRead(actor, "tree", { orgId: o.id, teamId: null })
      ),
    }));
  r.add({
    method: "post",
    path: "/orgs",
    tag: "tree",
    summary: "Create an organisation",
    body: named,
    access: "administrator",
    status: 201,
  }, async (c, { body, actor }) => {
    if (actor.role !== "administrator" || actor.readOnly) throw new AppError("forbidden");
    const org = await t().createOrg(body.name);
    await audit().record(
      actor,
      "org.create",
      { kind: "org", id: org.id, orgId: org.id },
      null,
      org,
    );
    return c.json(org, 201);
  });
  r.add({
    method: "get",
    path: "/orgs/:id",
    tag: "tree",
    summary: "Get an organisation",
    access: "its people",
  }, (c, { actor }) => {
    const id = c.req.param("id")!;
    requireRead(actor, "tree", { orgId: id, teamId: null }, c.req.path);
    return c.json(t().org(id));
  });
  r.add({
    method: "patch",
    path: "/orgs/:id",
    tag: "tree",
    summary: "Rename an organisation",
    body: named,
    access: "administrator, its tenant administrators",
  }, async (c, { body, actor }) => {
    const id = c.req.param("id")!;
    requireWrite(actor, "tree", { orgId: id, teamId: null }, c.req.path);
    const before = t().org(id);
    const after = await t().renameOrg(id, body.name);
    await audit().record(actor, "org.update", { kind: "org", id, orgId: id }, before, after);
    return c.json(after);
  });

  r.add({
    method: "get",
    path: "/teams",
    tag: "tree",
    summary: "List teams",
    query: z.object({ org_id: z.string().optional() }),
    access: "anyone, their own",
  }, (c, { actor, query }) =>
    c.json({
      data: [...t().teams.values()].filter((x) =>
        (!query.org_id || x.orgId === query.org_id) &&
        canRead(actor, "tree", { orgId: x.orgId, teamId: x.id })
      ),
    }));
  r.add({
    method: "post",
    path: "/teams",
    tag: "tree",
    summary: "Create a team",
    body: z.strictObject({ org_id: z.string(), name: z.string().min(1).max(63) }),
    access: "administrator, the org's tenant administrators",
    status: 201,
  }, async (c, { body, actor }) => {
    requireWrite(
      actor,
      "tree",
      { orgId: body.org_id, teamId: null },
      `/api/v1/orgs/${body.org_id}`,
    );
    const team = await t().createTeam(body.org_id, body.name);
    await audit().record(
      actor,
      "team.create",
      { kind: "team", id: team.id, orgId: team.orgId },
      null,
      team,
    );
    return c.json(team, 201);
  });
  r.add({
    method: "get",
    path: "/teams/:id",
    tag: "tree",
    summary: "Get a team",
    access: "its people",
  }, (c, { actor }) => {
    const team = t().teams.get(c.req.param("id")!);
    if (!team) throw new AppError("not_found", { path: c.req.path });
    requireRead(actor, "tree", { orgId: team.orgId, teamId: team.id }, c.req.path);
    return c.json(team);
  });
  r.add({
    method: "patch",
    path: "/teams/:id",
    tag: "tree",
    summary: "Rename a team",
    body: named,
    access: "administrator, tenant administrators above it",
  }, async (c, { body, actor }) => {
    const before = t().teams.get(c.req.param("id")!);
    if (!before) throw new AppError("not_found", { path: c.req.path });
    requireWrite(actor, "tree", { orgId: before.orgId, teamId: null }, c.req.path);
    const after = await t().renameTeam(before.id, body.name);
    await audit().record(
      actor,
      "team.update",
      { kind: "team", id: before.id, orgId: before.orgId },
      before,
      after,
    );
    return c.json(after);
  });

  r.add({
    method: "get",
    path: "/projects",
    tag: "tree",
    summary: "List projects",
    query: z.object({ team_id: z.string().optional() }),
    access: "anyone, their own",
  }, (c, { actor, query }) =>
    c.json({
      data: [...t().projects.values()].filter((p) =>
        (!query.team_id || p.teamId === query.team_id) &&
        canRead(actor, "tree", { orgId: p.orgId, teamId: p.teamId })
      ),
    }));
  r.add({
    method: "post",
    path: "/projects",
    tag: "tree",
    summary: "Create a project",
    body: z.strictObject({ team_id: z.string(), name: z.string().min(1).max(63) }),
    access: "administrator, tenant administrators of the team or org",
    status: 201,
  }, async (c, { body, actor }) => {
    const team = t().teams.get(body.team_id);
    if (!team) throw new AppError("not_found", { path: `/api/v1/teams/${body.team_id}` });
    requireWrite(actor, "tree", { orgId: team.orgId, teamId: team.id }, `/api/v1/teams/${team.id}`);
    const p = await t().createProject(team.id, body.name);
    await audit().record(
      actor,
      "project.create",
      { kind: "project", id: p.id, orgId: p.orgId },
      null,
      p,
    );
    return c.json(p, 201);
  });
  r.add({
    method: "get",
    path: "/projects/:id",
    tag: "tree",
    summary: "Get a project",
    access: "its people",
  }, (c, { actor }) => {
    const p = t().projects.get(c.req.param("id")!);
    if (!p) throw new AppError("not_found", { path: c.req.path });
    requireRead(actor, "tree", { orgId: p.orgId, teamId: p.teamId }, c.req.path);
    return c.json(p);
  });
  r.add({
    method: "patch",
    path: "/projects/:id",
    tag: "tree",
    summary: "Rename a project",
    body: named,
    access: "administrator, tenant administrators of the team or org",
  }, async (c, { body, actor }) => {
    const before = t().projects.get(c.req.param("id")!);
    if (!before) throw new AppError("not_found", { path: c.req.path });
    requireWrite(actor, "tree", { orgId: before.orgId, teamId: before.teamId }, c.req.path);
    const after = await t().renameProject(before.id, body.name);
    await audit().record(
      actor,
      "project.update",
      { kind: "project", id: before.id, orgId: before.orgId },
      before,
      after,
    );
    return c.json(after);
  });
}
