/**
 * Usage: the recent rows, narrowed to what the caller may see, and the sums finance reads
 * (administrators and operators only).
 */
import { desc, inArray } from "drizzle-orm";
import { z } from "zod";
import { usage } from "../../../db/schema.ts";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import { canRead, requireRead } from "../../tenancy/access.ts";
import { utcDay } from "../../usage/daily.ts";
import {
  parseDay,
  summarizeUsage,
  type UsageGrouping,
  usageGroupings,
} from "../../usage/summary.ts";
import { placeOfKey } from "../../tenancy/place_of_key.ts";
import type { AdminRegistry } from "./registry.ts";

const limitQuery = z.string().regex(/^\d+$/).optional();

const cluster = { orgId: null, teamId: null };

export function usageRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "clock" | "keyOwners" | "keys" | "people" | "store">,
): void {
  r.add({
    method: "get",
    path: "/usage",
    tag: "usage",
    summary: "Recent usage rows, newest first; costMicros in micro-units of `currency`, which " +
      "the portal and ctl show as that currency with up to six decimals",
    query: z.object({ limit: limitQuery }),
    access: "administrator and operator, all; others, their tenant's or their own keys'",
  }, async (c, { actor, query }) => {
    const limit = Math.min(Number(query.limit ?? 100) || 100, 1000);
    const all = actor.role === "administrator" || actor.role === "operator";
    const keyIds = all ? [] : (await deps.keys.list())
      .filter((k) => canRead(actor, "usage", placeOfKey(deps, k))).map((k) => k.id);
    const currency = deps.people.prices.currency;
    if (!all && keyIds.length === 0) return c.json({ data: [], currency });
    const q = deps.store.db.select().from(usage);
    const rows = await (all ? q : q.where(inArray(usage.keyId, keyIds))).orderBy(desc(usage.at))
      .limit(limit);
    return c.json({ data: rows, currency });
  });

  r.add({
    tag: "operations",
    access: "administrator, operator",
    method: "get",
    path: "/usage/summary",
    summary: "Usage sums (query: since, until, by); costMicros in micro-units of `currency`",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    const by = (c.req.query("by") ?? "model") as UsageGrouping;
    if (!usageGroupings.includes(by)) {
      throw new AppError(
        "invalid_request",
        { detail: `by: expected one of ${usageGroupings.join(", ")}` },
        "by",
      );
    }
    const now = deps.clock.now();
    const until = c.req.query("until") ? parseDay(c.req.query("until")!, "until") : utcDay(now);
    const since = c.req.query("since")
      ? parseDay(c.req.query("since")!, "since")
      : until.slice(0, 8) + "01";
    if (since > until) {
      throw new AppError("invalid_request", { detail: "since: after until" }, "since");
    }
    const summary = await summarizeUsage(deps.store, { since, until, by }, deps.keyOwners);
    return c.json({ ...summary, currency: deps.people.prices.currency });
  });
}
