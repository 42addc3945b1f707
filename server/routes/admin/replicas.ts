/** Replicas and their states, from the models service. */
import type { AppDeps } from "../../deps.ts";
import { requireRead } from "../../tenancy/access.ts";
import { modelServicesOf } from "./models.ts";
import type { AdminRegistry } from "./registry.ts";

const cluster = { orgId: null, teamId: null };

export function replicaRoutes(r: AdminRegistry, deps: Pick<AppDeps, "modelServices">): void {
  r.add({
    tag: "models",
    access: "administrator, operator",
    method: "get",
    path: "/replicas",
    summary: "Replicas and their states (query: model)",
  }, (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    const model = c.req.query("model");
    return c.json({ data: modelServicesOf(deps).replicas(model || undefined) });
  });
}
