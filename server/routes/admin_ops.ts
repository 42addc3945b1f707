/**
 * The operator's part of the admin API (mounted inside /api/v1, behind the admin token):
 * usage summaries for finance, the cluster's live settings, and backups.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { parseDay, summarizeUsage, type UsageGrouping, usageGroupings } from "../usage/summary.ts";
import { utcDay } from "../usage/daily.ts";
import { snapshotStream } from "../ops/backup.ts";
import { readJsonBody } from "../router/read_body.ts";

function requireSettings(deps: AppDeps) {
  if (!deps.settings) {
    throw new AppError("invalid_request", { detail: "this server keeps no cluster settings" });
  }
  return deps.settings;
}

export function opsAdminRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/usage/summary", async (c) => {
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
    return c.json(await summarizeUsage(deps.store, { since, until, by }, deps.keyOwners));
  });

  app.get("/settings", (c) => c.json({ data: requireSettings(deps).list() }));
  app.put("/settings", async (c) => {
    const body = await readJsonBody(c.req.raw, 256 * 1024);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new AppError("invalid_request", { detail: 'body: expected {"key": value, …}' });
    }
    return c.json(await requireSettings(deps).set(body as Record<string, unknown>));
  });

  // Sends a test notification to each webhook and says how each answered.
  app.post("/notify/test", async (c) => {
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
  app.post("/backup", async () => {
    const { body, size } = await snapshotStream(deps.store);
    return new Response(body, {
      headers: {
        "content-type": "application/vnd.sqlite3",
        "content-length": String(size),
        "content-disposition": 'attachment; filename="llmgw-backup.db"',
      },
    });
  });

  return app;
}
