/** Usage and the audit trail: read-only, each narrowed to what the caller may see. */
import { desc, inArray } from "drizzle-orm";
import { z } from "zod";
import { usage } from "../../../db/schema.ts";
import type { Store } from "../../../db/store.ts";
import type { PeopleServices } from "../../tenancy/services.ts";
import type { KeyService } from "../../keys/keys.ts";
import { AppError } from "../../errors.ts";
import { canRead } from "../../tenancy/access.ts";
import { placeOfKey } from "./keys.ts";
import type { AdminRegistry } from "./registry.ts";

const limitQuery = z.string().regex(/^\d+$/).optional();

export function recordRoutes(
  r: AdminRegistry,
  deps: { people: PeopleServices; keys: Pick<KeyService, "list">; store: Store },
): void {
  r.add({
    method: "get",
    path: "/usage",
    tag: "usage",
    summary: "Recent usage rows, newest first",
    query: z.object({ limit: limitQuery }),
    access: "administrator and operator, all; others, their tenant's or their own keys'",
  }, async (c, { actor, query }) => {
    const limit = Math.min(Number(query.limit ?? 100) || 100, 1000);
    const all = actor.role === "administrator" || actor.role === "operator";
    const keyIds = all ? [] : (await deps.keys.list())
      .filter((k) => canRead(actor, "usage", placeOfKey(deps, k))).map((k) => k.id);
    if (!all && keyIds.length === 0) return c.json({ data: [] });
    const q = deps.store.db.select().from(usage);
    const rows = await (all ? q : q.where(inArray(usage.keyId, keyIds))).orderBy(desc(usage.at))
      .limit(limit);
    return c.json({ data: rows });
  });

  r.add({
    method: "get",
    path: "/audit",
    tag: "audit",
    summary: "The audit trail, newest first (append-only: no route changes it)",
    query: z.object({
      since: limitQuery,
      actor: z.string().optional(),
      target: z.string().optional(),
      limit: limitQuery,
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
