/** The bearer tokens identity providers provision with over SCIM: made (shown once), listed, revoked. */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { requireRead, requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const staff = { orgId: null, teamId: null };
const create = z.strictObject({ name: z.string().min(1).max(100) });

export function scimTokenRoutes(r: AdminRegistry, deps: Pick<AdminDeps, "people">): void {
  const tokens = () => deps.people.scim.tokens;
  r.add({
    method: "get",
    path: "/scim/tokens",
    tag: "sign-in",
    summary: "SCIM provisioning tokens (never the tokens themselves)",
    access: "administrator, operator",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", staff, c.req.path);
    return c.json({ data: await tokens().list() });
  });
  r.add({
    method: "post",
    path: "/scim/tokens",
    tag: "sign-in",
    summary: "Make a SCIM provisioning token; it is shown once, and only its hash is kept",
    body: create,
    access: "administrator",
    status: 201,
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", staff, c.req.path);
    const { id, token } = await tokens().create(body.name);
    await deps.people.audit.record(
      actor,
      "scim_token.create",
      {
        kind: "scim_token",
        id,
        orgId: null,
      },
      null,
      { id, name: body.name },
    );
    return c.json({ id, name: body.name, token }, 201);
  });
  r.add({
    method: "delete",
    path: "/scim/tokens/:id",
    tag: "sign-in",
    summary: "Revoke a SCIM provisioning token",
    access: "administrator",
  }, async (c, { actor }) => {
    requireWrite(actor, "staff", staff, c.req.path);
    const id = c.req.param("id")!;
    await tokens().revoke(id);
    await deps.people.audit.record(
      actor,
      "scim_token.revoke",
      {
        kind: "scim_token",
        id,
        orgId: null,
      },
      null,
      null,
    );
    return c.json({ id, revoked: true });
  });
}
