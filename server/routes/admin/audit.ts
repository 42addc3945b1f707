/** The audit trail: read-only (append-only: no route changes it), narrowed to the caller's org. */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import { canRead } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

/** Milliseconds since 1970 (since) or a count (limit), as the query string carries them. */
const digits = z.string().regex(/^\d+$/).optional();

export function auditRoutes(r: AdminRegistry, deps: Pick<AdminDeps, "people">): void {
  r.add({
    method: "get",
    path: "/audit",
    tag: "audit",
    summary: "The audit trail, newest first (append-only: no route changes it)",
    query: z.object({
      since: digits,
      actor: z.string().optional(),
      target: z.string().optional(),
      limit: digits,
    }),
    access: "administrator, all; an organisation's tenant administrators, their organisation's",
  }, async (c, { actor, query }) => {
    const all = actor.role === "administrator";
    if (!all && !canRead(actor, "audit", { orgId: actor.orgId, teamId: null })) {
      throw new AppError("forbidden");
    }
    const rows = await deps.people.audit.list({
      ...(query.since ? { since: Number(query.since) } : {}),
      ...(query.actor ? { actor: query.actor } : {}),
      ...(query.target ? { target: query.target } : {}),
      ...(all ? {} : { orgId: actor.orgId }),
      limit: Number(query.limit ?? 200) || 200,
    });
    return c.json({ data: rows });
  });
}
