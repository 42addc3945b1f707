/** People: create, list, change role/place/state, and an administrator's password reset. */
import { z } from "zod";
import { generatePassword } from "../../auth/secrets.ts";
import { hashPassword } from "../../auth/passwords.ts";
import type { PeopleServices } from "../../tenancy/services.ts";
import { AppError } from "../../../core/errors.ts";
import { type Actor, canGrant, canRead, requireRead, requireWrite } from "../../tenancy/access.ts";
import { roles } from "../../../db/schema.ts";
import type { Person } from "../../tenancy/tenancy.ts";
import type { AdminRegistry } from "./registry.ts";
import { adminUsername, forgetFirstPassword } from "../../setup/first_password.ts";

const role = z.enum(roles);
const createPerson = z.strictObject({
  username: z.string().min(1).max(100),
  email: z.email().optional(),
  display_name: z.string().max(200).optional(),
  role,
  org_id: z.string().nullable().optional(),
  team_id: z.string().nullable().optional(),
  password: z.string().min(12).max(200).optional(),
});
const patchPerson = z.strictObject({
  display_name: z.string().max(200).nullable().optional(),
  role: role.optional(),
  org_id: z.string().nullable().optional(),
  team_id: z.string().nullable().optional(),
  state: z.enum(["active", "suspended"]).optional(),
});
const resetPassword = z.strictObject({ password: z.string().min(12).max(200).optional() });

export function peopleRoutes(r: AdminRegistry, deps: { people: PeopleServices }): void {
  const p = () => deps.people;
  const get = (actor: Actor, id: string, path: string): Person => {
    const person = p().tenancy.people.get(id);
    if (!person) throw new AppError("not_found", { path });
    requireRead(actor, "people", p().tenancy.placeOfPerson(id), path);
    return person;
  };
  // The place a body names (org_id, team_id). An org or team the caller cannot see is, to them,
  // nobody: 404 as for an invented id, never a 400 that says how it relates to another.
  const placeNamed = (actor: Actor, orgId: string | null, teamId: string | null) => {
    const t = p().tenancy;
    const team = teamId ? t.team(teamId) : undefined;
    if (team) {
      requireRead(
        actor,
        "tree",
        { orgId: team.orgId, teamId: team.id },
        `/api/v1/teams/${team.id}`,
      );
    }
    if (orgId) {
      requireRead(actor, "tree", { orgId: t.org(orgId).id, teamId: null }, `/api/v1/orgs/${orgId}`);
    }
    return t.resolveScope(orgId, teamId);
  };
  const guardRole = (actor: Actor, r: Person["role"]) => {
    if (!canGrant(actor, r)) throw new AppError("forbidden");
  };

  r.add({
    method: "get",
    path: "/people",
    tag: "people",
    summary: "List people",
    query: z.object({ org_id: z.string().optional(), team_id: z.string().optional() }),
    access: "administrator; tenant administrators and viewers, their tenant; members, themselves",
  }, (c, { actor, query }) =>
    c.json({
      data: [...p().tenancy.people.values()].filter((x) =>
        (!query.org_id || x.orgId === query.org_id) &&
        (!query.team_id || x.teamId === query.team_id) &&
        canRead(actor, "people", { orgId: x.orgId, teamId: x.teamId, personId: x.id })
      ),
    }));

  r.add({
    method: "post",
    path: "/people",
    tag: "people",
    summary: "Add a person (the password, if generated, is shown once)",
    body: createPerson,
    access: "administrator; tenant administrators, inside their tenant",
    status: 201,
  }, async (c, { actor, body }) => {
    const place = placeNamed(actor, body.org_id ?? null, body.team_id ?? null);
    requireWrite(actor, "people", { ...place, personId: null }, c.req.path);
    guardRole(actor, body.role);
    if (actor.role !== "administrator" && !place.orgId) throw new AppError("forbidden");
    const password = body.password ?? generatePassword();
    const person = await p().tenancy.createPerson({
      username: body.username,
      email: body.email ?? null,
      displayName: body.display_name ?? null,
      role: body.role,
      ...place,
      passwordHash: await hashPassword(password),
    });
    await p().audit.record(
      actor,
      "person.create",
      { kind: "person", id: person.id, orgId: person.orgId },
      null,
      { ...person, password: "set" },
    );
    return c.json({ ...person, ...(body.password ? {} : { password }) }, 201);
  });

  r.add({
    method: "get",
    path: "/people/:id",
    tag: "people",
    summary: "Get a person",
    access: "as for the list",
  }, (c, { actor }) => c.json(get(actor, c.req.param("id")!, c.req.path)));

  r.add({
    method: "patch",
    path: "/people/:id",
    tag: "people",
    summary: "Change a person's name, role, place or state",
    body: patchPerson,
    access: "administrator; tenant administrators, inside their tenant",
  }, async (c, { actor, body }) => {
    const id = c.req.param("id")!;
    const before = get(actor, id, c.req.path);
    requireWrite(actor, "people", p().tenancy.placeOfPerson(id), c.req.path);
    guardRole(actor, before.role);
    if (body.role) guardRole(actor, body.role);
    if (actor.personId === id && (body.role || body.state)) {
      throw new AppError(
        "invalid_request",
        { detail: "you cannot change your own role or state" },
        "role",
      );
    }
    const moving = body.org_id !== undefined || body.team_id !== undefined;
    const place = moving
      ? placeNamed(
        actor,
        body.org_id !== undefined ? body.org_id : before.orgId,
        body.team_id ?? null,
      )
      : { orgId: before.orgId, teamId: before.teamId };
    if (moving) requireWrite(actor, "people", { ...place, personId: null }, c.req.path);
    const after = await p().tenancy.updatePerson(id, {
      ...(body.display_name !== undefined ? { displayName: body.display_name } : {}),
      ...(body.role ? { role: body.role } : {}),
      ...(body.state ? { state: body.state } : {}),
      ...place,
    });
    // A suspension or a narrower role must take effect at once, not when a session ends.
    if (body.state === "suspended" || body.role || moving) await p().sessions.revokeAllOf(id);
    await p().audit.record(
      actor,
      "person.update",
      { kind: "person", id, orgId: after.orgId },
      before,
      after,
    );
    return c.json(after);
  });

  r.add({
    method: "post",
    path: "/people/:id/password",
    tag: "people",
    summary: "Reset a person's password (a generated one is shown once)",
    body: resetPassword,
    access: "administrator; tenant administrators, inside their tenant",
  }, async (c, { actor, body }) => {
    const id = c.req.param("id")!;
    const person = get(actor, id, c.req.path);
    requireWrite(actor, "people", p().tenancy.placeOfPerson(id), c.req.path);
    guardRole(actor, person.role);
    if (person.signIn === "oidc" || person.signIn === "directory") {
      // A local password would give the provider's account a second way in that outlives its leaving.
      throw new AppError("conflict", {
        detail:
          "this person signs in through the identity provider or directory and has no local password",
      });
    }
    const password = body.password ?? generatePassword();
    await p().tenancy.updatePerson(id, { passwordHash: await hashPassword(password) });
    // init's file would hold a password that no longer works.
    const firstPassword = p().firstPasswordFile;
    if (person.username === adminUsername && firstPassword) {
      await forgetFirstPassword(firstPassword);
    }
    await p().sessions.revokeAllOf(id);
    await p().audit.record(
      actor,
      "person.password_reset",
      { kind: "person", id, orgId: person.orgId },
      { password: "old" },
      { password: "new" },
    );
    return c.json({ id, ...(body.password ? {} : { password }) });
  });

  r.add({
    method: "delete",
    path: "/people/:id/sessions",
    tag: "people",
    summary: "End every sign-in session of a person at once",
    access: "administrator; tenant administrators, inside their tenant",
  }, async (c, { actor }) => {
    const id = c.req.param("id")!;
    const person = get(actor, id, c.req.path);
    requireWrite(actor, "people", p().tenancy.placeOfPerson(id), c.req.path);
    guardRole(actor, person.role);
    await p().sessions.revokeAllOf(id);
    await p().audit.record(
      actor,
      "person.sessions_revoke",
      {
        kind: "person",
        id,
        orgId: person.orgId,
      },
      null,
      null,
    );
    return c.json({ id });
  });
}
