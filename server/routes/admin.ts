/** The admin API under /api/v1, behind an admin token. */
import { Hono } from "hono";
import { desc } from "drizzle-orm";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { usage } from "../../db/schema.ts";
import { readJsonBody } from "../router/read_body.ts";
import { nodeAdminRoutes } from "../nodes/admin_routes.ts";
import { opsAdminRoutes } from "./admin_ops.ts";

const createKeyInput = z.strictObject({
  name: z.string().min(1).max(100),
  expires_at: z.number().int().positive().optional(),
});

export function adminRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use("*", async (c, next) => {
    const token = bearerToken(c.req.raw);
    if (!token || !(await deps.adminTokens.check(token))) throw new AppError("unauthorized");
    await next();
  });

  app.post("/keys", async (c) => {
    const input = parse(createKeyInput, await readJsonBody(c.req.raw, 64 * 1024));
    const created = await deps.keys.create({
      name: input.name,
      ...(input.expires_at ? { expiresAt: input.expires_at } : {}),
    });
    return c.json(created, 201);
  });
  app.get("/keys", async (c) => c.json({ data: await deps.keys.list() }));
  app.delete("/keys/:id", async (c) => c.json(await deps.keys.revoke(c.req.param("id"))));

  app.get("/models", (c) =>
    c.json({
      data: deps.catalog.list().map((m) => ({
        ...m,
        replicas: deps.replicas.forModel(m.name).map((r) => deps.replicas.view(r)),
        queued: deps.routing.admission.waiting(m.name),
      })),
    }));

  app.route("/nodes", nodeAdminRoutes(deps.nodes));

  app.route("/", opsAdminRoutes(deps));

  app.get("/usage", async (c) => {
    const limit = Math.min(Number(c.req.query("limit") ?? 100) || 100, 1000);
    const rows = await deps.store.db.select().from(usage).orderBy(desc(usage.at)).limit(limit);
    return c.json({ data: rows });
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
