/** Replicas and their states, from the models service; a replica's engine log, from its node. */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import { engineLogMaxLines } from "../../../core/protocol/messages.ts";
import { requireRead } from "../../tenancy/access.ts";
import { parse } from "../parse_input.ts";
import { modelServicesOf } from "./models.ts";
import type { AdminRegistry } from "./registry.ts";

const cluster = { orgId: null, teamId: null };
const logQuery = z.object({
  lines: z.coerce.number().int().min(1).max(engineLogMaxLines).default(100),
});

export function replicaRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "modelServices" | "nodes">,
): void {
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
  r.add({
    tag: "models",
    access: "administrator, operator",
    method: "get",
    path: "/models/:name{.+}/replicas/:rid/log",
    summary:
      `The last lines its engine printed, secrets hidden (query: lines, 1–${engineLogMaxLines}, ` +
      `default 100). status: ok, agent_too_old (its node's agent cannot send them), ` +
      `not_connected or no_answer`,
  }, async (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    if (!deps.nodes) {
      throw new AppError("conflict", {
        detail: "this control plane has no cluster listener (cluster_listen is empty)",
      });
    }
    const { lines } = parse(logQuery, { lines: c.req.query("lines") ?? undefined });
    const model = c.req.param("name")!;
    const replica = c.req.param("rid")!;
    const answer = await deps.nodes.hub.engineLog(model, replica, lines);
    return c.json({ model, replica, lines: [], ...answer });
  });
}
