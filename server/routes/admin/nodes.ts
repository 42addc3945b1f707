/** Nodes: join codes, the node list, cordon / uncordon / drain, removal, and replicas by hand. */
import { z } from "zod";
import { AppError } from "../../../core/errors.ts";
import type { NodeServices } from "../../nodes/node_services.ts";
import { requireRead, requireWrite } from "../../tenancy/access.ts";
import type { AdminRegistry } from "./registry.ts";

const labelKey = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
const joinCodeInput = z.strictObject({
  labels: z.record(z.string().regex(labelKey), z.string().max(200)).optional(),
  expires_in_ms: z.number().int().min(1_000).max(30 * 86_400_000).optional(),
});
const replicaIdRule = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
const startReplicaInput = z.strictObject({
  replicaId: replicaIdRule,
  model: z.string().min(1).max(200),
  engine: z.string().min(1).max(50),
  modelPath: z.string().min(1).optional(),
  args: z.array(z.string()).max(200).optional(),
});

/** Nodes are the cluster's, not a tenant's: only administrators and operators see or touch them. */
const cluster = { orgId: null, teamId: null };

export function nodeRoutes(registry: AdminRegistry, nodes: NodeServices | undefined): void {
  const svc = (): NodeServices => {
    if (!nodes) {
      throw new AppError("conflict", {
        detail: "this control plane has no cluster listener (cluster_listen is empty)",
      });
    }
    return nodes;
  };
  const read = { tag: "nodes", access: "administrator, operator" };

  registry.add({
    ...read,
    method: "post",
    path: "/nodes/join-codes",
    summary: "Make a one-time join code",
    body: joinCodeInput,
    audit: { action: "node.join_code" },
    status: 201,
  }, async (c, { body, actor }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const created = await svc().joinCodes.create({
      labels: body.labels ?? {},
      ttlMs: body.expires_in_ms ?? svc().joinCodeTtlMs,
    });
    return c.json(created, 201);
  });
  registry.add(
    { ...read, method: "get", path: "/nodes", summary: "Nodes with their state" },
    async (c, { actor }) => {
      requireRead(actor, "staff", cluster, c.req.path);
      return c.json({ data: await svc().hub.list() });
    },
  );
  registry.add(
    { ...read, method: "get", path: "/nodes/:id", summary: "One node" },
    async (c, { actor }) => {
      requireRead(actor, "staff", cluster, c.req.path);
      return c.json(await svc().hub.get(c.req.param("id")!));
    },
  );
  const flags = {
    cordon: { cordoned: true, draining: false },
    uncordon: { cordoned: false, draining: false },
    drain: { cordoned: true, draining: true },
  } as const;
  for (const [verb, set] of Object.entries(flags)) {
    registry.add(
      {
        ...read,
        method: "post",
        path: `/nodes/:id/${verb}`,
        summary: `${verb} a node`,
        audit: { action: `node.${verb}` },
      },
      async (c, { actor }) => {
        requireWrite(actor, "staff", cluster, c.req.path);
        return c.json(await svc().hub.setFlags(c.req.param("id")!, set));
      },
    );
  }
  registry.add({
    ...read,
    method: "delete",
    path: "/nodes/:id",
    audit: { action: "node.remove" },
    summary: "Remove a node and revoke its credential",
  }, async (c, { actor }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    return c.json(await svc().hub.remove(c.req.param("id")!));
  });
  {
    registry.add({
      ...read,
      method: "post",
      path: "/nodes/:id/replicas",
      summary: "Start a replica on a node",
      body: startReplicaInput,
      audit: { action: "replica.start" },
      status: 202,
    }, async (c, { body, actor }) => {
      requireWrite(actor, "staff", cluster, c.req.path);
      const replica = await svc().hub.startReplica(c.req.param("id")!, {
        replicaId: body.replicaId,
        model: body.model,
        engine: body.engine,
        ...(body.modelPath ? { modelPath: body.modelPath } : {}),
        args: body.args ?? [],
      });
      return c.json(replica, 202);
    });
    registry.add({
      ...read,
      method: "delete",
      path: "/nodes/:id/replicas/:replicaId",
      audit: { action: "replica.stop" },
      summary: "Stop a replica",
      status: 202,
    }, async (c, { actor }) => {
      requireWrite(actor, "staff", cluster, c.req.path);
      const replicaId = c.req.param("replicaId")!;
      await svc().hub.stopReplica(c.req.param("id")!, replicaId);
      return c.json({ replicaId, stopping: true }, 202);
    });
  }
}
