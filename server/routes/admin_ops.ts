/**
 * The operator's part of the admin API (declared through the admin registry; administrators and operators only):
 * usage summaries for finance, the cluster's live settings, and backups.
 */
import type { AppDeps } from "../deps.ts";
import type { AdminRegistry } from "./admin/registry.ts";
import { requireRead, requireWrite } from "../tenancy/access.ts";
import { AppError } from "../errors.ts";
import { parseDay, summarizeUsage, type UsageGrouping, usageGroupings } from "../usage/summary.ts";
import { utcDay } from "../usage/daily.ts";
import { snapshotStream } from "../ops/backup.ts";
import { z } from "zod";

function requireSettings(deps: AppDeps) {
  if (!deps.settings) {
    throw new AppError("invalid_request", { detail: "this server keeps no cluster settings" });
  }
  return deps.settings;
}

const cluster = { orgId: null, teamId: null };

export function opsAdminRoutes(r: AdminRegistry, deps: AppDeps): void {
  const base = { tag: "operations", access: "administrator, operator" };

  r.add({
    ...base,
    method: "get",
    path: "/usage/summary",
    summary: "Usage sums (query: since, until, by)",
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

  r.add({
    ...base,
    method: "get",
    path: "/settings",
    summary: "The cluster's settings, each saying whether it applies live",
  }, (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    return c.json({ data: requireSettings(deps).list() });
  });
  r.add({
    ...base,
    method: "put",
    path: "/settings",
    audit: { action: "settings.set", snapshot: () => deps.settings?.list() ?? null },
    summary: "Change settings ({key: value, …})",
    body: z.unknown(),
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new AppError("invalid_request", { detail: 'body: expected {"key": value, …}' });
    }
    return c.json(await requireSettings(deps).set(body as Record<string, unknown>));
  });

  // Sends a test notification to each webhook and says how each answered.
  r.add({
    ...base,
    method: "post",
    path: "/notify/test",
    summary: "Send a test notification to each webhook",
  }, async (c, { actor }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const sender = deps.notifySender;
    if (!sender) return c.json({ data: [] });
    const now = deps.clock.now();
    return c.json({
      data: await sender.test({
        event: "test",
        subject: "llmgw",
        state: "firing",
        at: new Date(now).toISOString(),
        episode: `test-${now}`,
        summary: "a test notification from llmgw",
        details: {},
      }),
    });
  });

  // The snapshot streams back to the caller (ctl backup writes it where the operator is).
  r.add({
    ...base,
    method: "post",
    path: "/backup",
    audit: { action: "store.backup" },
    summary: "A consistent copy of the store, streamed back",
  }, async (c, { actor }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const { body, size } = await snapshotStream(deps.store);
    return new Response(body, {
      headers: {
        "content-type": "application/vnd.sqlite3",
        "content-length": String(size),
        "content-disposition": 'attachment; filename="llmgw-backup.db"',
      },
    });
  });
}
