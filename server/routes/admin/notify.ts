/** A test notification to each webhook, and how each answered. */
import type { AdminDeps } from "./admin_deps.ts";
import { requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const cluster = { orgId: null, teamId: null };

export function notifyRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "clock" | "notifySender">,
): void {
  r.add({
    tag: "operations",
    access: "administrator, operator",
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
}
