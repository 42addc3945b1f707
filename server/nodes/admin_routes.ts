/** The admin API for nodes, under /api/v1/nodes (behind the admin token, see routes/admin.ts). */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../errors.ts";
import { readJsonBody } from "../router/read_body.ts";
import type { JoinCodes } from "./join_codes.ts";
import type { NodeHub } from "./node_hub.ts";

export interface NodeServices {
  hub: NodeHub;
  joinCodes: JoinCodes;
  joinCodeTtlMs: number;
}

const labelKey = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;
const joinCodeInput = z.strictObject({
  labels: z.record(z.string().regex(labelKey), z.string().max(200)).optional(),
  expires_in_ms: z.number().int().min(1_000).max(30 * 86_400_000).optional(),
});
const startShardInput = z.strictObject({
  shardId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/),
  model: z.string().min(1).max(200),
  engine: z.string().min(1).max(50),
  modelPath: z.string().min(1).optional(),
  args: z.array(z.string()).max(200).optional(),
});

export function nodeAdminRoutes(nodes: NodeServices | undefined): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (_c, next) => {
    if (!nodes) {
      throw new AppError("conflict", {
        detail: "this control plane has no cluster listener (cluster_listen is empty)",
      });
    }
    await next();
  });
  const svc = () => nodes!;

  app.post("/join-codes", async (c) => {
    const input = parse(joinCodeInput, await readJsonBody(c.req.raw, 16 * 1024));
    const created = await svc().joinCodes.create({
      labels: input.labels ?? {},
      ttlMs: input.expires_in_ms ?? svc().joinCodeTtlMs,
    });
    return c.json(created, 201);
  });
  app.get("/", async (c) => c.json({ data: await svc().hub.list() }));
  app.get("/:id", async (c) => c.json(await svc().hub.get(c.req.param("id"))));
  app.post(
    "/:id/cordon",
    async (c) =>
      c.json(await svc().hub.setFlags(c.req.param("id"), { cordoned: true, draining: false })),
  );
  app.post(
    "/:id/uncordon",
    async (c) =>
      c.json(await svc().hub.setFlags(c.req.param("id"), { cordoned: false, draining: false })),
  );
  app.post(
    "/:id/drain",
    async (c) =>
      c.json(await svc().hub.setFlags(c.req.param("id"), { cordoned: true, draining: true })),
  );
  app.delete("/:id", async (c) => c.json(await svc().hub.remove(c.req.param("id"))));
  app.post("/:id/shards", async (c) => {
    const input = parse(startShardInput, await readJsonBody(c.req.raw, 64 * 1024));
    const shard = await svc().hub.startShard(c.req.param("id"), {
      shardId: input.shardId,
      model: input.model,
      engine: input.engine,
      ...(input.modelPath ? { modelPath: input.modelPath } : {}),
      args: input.args ?? [],
    });
    return c.json(shard, 202);
  });
  app.delete("/:id/shards/:shardId", async (c) => {
    await svc().hub.stopShard(c.req.param("id"), c.req.param("shardId"));
    return c.json({ shardId: c.req.param("shardId"), stopping: true }, 202);
  });
  return app;
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.join(".");
  throw new AppError(
    "invalid_request",
    { detail: `${path || "body"}: ${issue.message}` },
    path || null,
  );
}
