/** API keys: a person's key within a project, or a project's service key. Shown once. */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import { type Actor, canRead, requireRead, requireWrite } from "../../tenancy/access.ts";
import { placeOfKey } from "../../tenancy/place_of_key.ts";
import type { AdminRegistry } from "./registry.ts";

const createKey = z.strictObject({
  name: z.string().min(1).max(100),
  project_id: z.string().optional(),
  /** The key's owner; a member's keys are always their own. */
  person_id: z.string().optional(),
  /** A project's service key, owned by no person. */
  service: z.boolean().optional(),
  expires_at: z.number().int().positive().optional(),
});

export function keyRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "clock" | "keys" | "people">,
): void {
  const p = () => deps.people;
  const visible = async (actor: Actor) =>
    (await deps.keys.list()).filter((k) => canRead(actor, "keys", placeOfKey(deps, k)));

  r.add({
    method: "get",
    path: "/keys",
    tag: "keys",
    summary: "List API keys (prefixes only)",
    query: z.object({ project_id: z.string().optional(), person_id: z.string().optional() }),
    access: "administrator; tenant administrators and viewers, their tenant; members, their own",
  }, async (c, { actor, query }) =>
    c.json({
      data: (await visible(actor)).filter((k) =>
        (!query.project_id || k.projectId === query.project_id) &&
        (!query.person_id || k.userId === query.person_id)
      ),
    }));

  r.add({
    method: "post",
    path: "/keys",
    tag: "keys",
    summary: "Make an API key (shown once)",
    body: createKey,
    access:
      "administrator; tenant administrators, inside their tenant; members, their own in their projects",
    status: 201,
  }, async (c, { actor, body }) => {
    const t = p().tenancy;
    const project = body.project_id ? t.projects.get(body.project_id) : undefined;
    if (body.project_id && !project) {
      throw new AppError("not_found", { path: `/api/v1/projects/${body.project_id}` });
    }
    if (project) {
      requireRead(
        actor,
        "tree",
        { orgId: project.orgId, teamId: project.teamId },
        `/api/v1/projects/${project.id}`,
      );
    }
    if (!project && actor.role !== "administrator") {
      throw new AppError("invalid_request", { detail: "project_id is required" }, "project_id");
    }
    if (body.service && body.person_id) {
      throw new AppError("invalid_request", { detail: "a service key has no person" }, "person_id");
    }
    if (body.service && !project) {
      throw new AppError(
        "invalid_request",
        { detail: "a service key belongs to a project" },
        "project_id",
      );
    }
    const personId = body.service ? null : body.person_id ?? actor.personId;
    if (personId) {
      const person = t.people.get(personId);
      const path = `/api/v1/people/${personId}`;
      if (!person) throw new AppError("not_found", { path });
      // Someone the caller cannot see is, to them, nobody: 404, not a hint that they exist.
      if (personId !== actor.personId) {
        requireRead(actor, "people", t.placeOfPerson(personId), path);
      }
      // A person's key spends from a project inside their tenant (staff have none: any project).
      const outside = project && person.orgId &&
        (project.orgId !== person.orgId || (person.teamId && project.teamId !== person.teamId));
      if (outside) {
        throw new AppError("invalid_request", {
          detail: "the person is not in the project's organisation or team",
        }, "project_id");
      }
    }
    const place = placeOfKey(deps, { userId: personId, projectId: project?.id ?? null });
    requireWrite(actor, "keys", place, c.req.path);
    const now = deps.clock.now();
    const chain = t.chain({ id: "", userId: personId, projectId: project?.id ?? null }).slice(
      0,
      -1,
    );
    const cap = p().limits.effective(chain).maxKeyTtlMs;
    let expiresAt = body.expires_at ?? null;
    if (expiresAt !== null && expiresAt <= now) {
      throw new AppError("invalid_request", { detail: "expires_at is in the past" }, "expires_at");
    }
    if (cap) {
      if (expiresAt === null) expiresAt = now + cap.value;
      else if (expiresAt > now + cap.value) {
        throw new AppError("invalid_request", {
          detail: `expires_at is later than the longest key lifetime (${
            Math.floor(cap.value / 86_400_000)
          } days, ${p().admission.label(cap.scope)})`,
        }, "expires_at");
      }
    }
    const created = await deps.keys.create({
      name: body.name,
      userId: personId,
      projectId: project?.id ?? null,
      expiresAt,
    });
    const { key: _, ...info } = created;
    await p().audit.record(
      actor,
      "key.create",
      { kind: "key", id: created.id, orgId: place.orgId },
      null,
      { ...info, key: "shown once" },
    );
    return c.json(created, 201);
  });

  r.add({
    method: "get",
    path: "/keys/:id",
    tag: "keys",
    summary: "Get an API key (prefix only)",
    access: "as for the list",
  }, async (c, { actor }) => {
    const k = await deps.keys.get(c.req.param("id")!);
    if (!k) throw new AppError("not_found", { path: c.req.path });
    requireRead(actor, "keys", placeOfKey(deps, k), c.req.path);
    return c.json(k);
  });

  r.add({
    method: "delete",
    path: "/keys/:id",
    tag: "keys",
    summary: "Revoke an API key at once",
    access: "administrator; tenant administrators, inside their tenant; members, their own",
  }, async (c, { actor }) => {
    const before = await deps.keys.get(c.req.param("id")!);
    if (!before) throw new AppError("not_found", { path: c.req.path });
    const place = placeOfKey(deps, before);
    requireWrite(actor, "keys", place, c.req.path);
    const after = await deps.keys.revoke(before.id);
    await p().audit.record(
      actor,
      "key.revoke",
      { kind: "key", id: before.id, orgId: place.orgId },
      before,
      after,
    );
    return c.json(after);
  });
}
