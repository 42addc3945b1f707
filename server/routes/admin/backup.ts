/** A consistent copy of the store, taken while serving. */
import type { AdminDeps } from "./admin_deps.ts";
import { snapshotStream } from "../../ops/backup.ts";
import { requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const cluster = { orgId: null, teamId: null };

export function backupRoutes(r: AdminRegistry, deps: Pick<AdminDeps, "store">): void {
  // The snapshot streams back to the caller (ctl backup writes it where the operator is).
  r.add({
    tag: "operations",
    access: "administrator, operator",
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
