/**
 * The mirror over HTTP. Admin API: /api/v1/mirror (list, add, show, remove), behind the admin
 * token. Files: GET/HEAD /mirror/<org>/<repo>/<commit>/<path> with Range, for an operator; nodes
 * read them at /cluster/v1/mirror/… on the cluster listener.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import type { AdminTokens } from "../auth/admin_tokens.ts";
import { AppError } from "../errors.ts";
import { readJsonBody } from "../router/read_body.ts";
import { serveMirrorFile } from "../weights/serve_mirror_file.ts";
import type { MirrorService } from "../weights/mirror.ts";

const addInput = z.strictObject({
  source: z.string().min(1).max(2000),
  sha256: z.string().max(64).optional(),
  allow_pickle: z.boolean().optional(),
});

/**
 * Who may read mirrored files here: an admin token (an operator with curl). Nodes read the same
 * files on the cluster listener with their own credential (`server/nodes/cluster_app.ts`), so a
 * node credential never travels outside the cluster's TLS.
 */
/** The admin tokens that open the mirror. */
export interface MirrorGuard {
  adminTokens: Pick<AdminTokens, "check">;
}

export async function mayReadMirror(deps: MirrorGuard, req: Request): Promise<boolean> {
  const token = bearerToken(req);
  return token !== undefined && await deps.adminTokens.check(token);
}

export function mirrorAdminRoutes(deps: MirrorGuard, mirror: MirrorService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    const token = bearerToken(c.req.raw);
    if (!token || !(await deps.adminTokens.check(token))) throw new AppError("unauthorized");
    await next();
  });
  app.get("/", async (c) => c.json({ data: await mirror.list() }));
  app.post("/", async (c) => {
    const r = addInput.safeParse(await readJsonBody(c.req.raw, 16 * 1024));
    if (!r.success) {
      const issue = r.error.issues[0]!;
      const path = issue.path.join(".") || "body";
      throw new AppError("invalid_request", { detail: `${path}: ${issue.message}` }, path);
    }
    const version = await mirror.add({
      source: r.data.source,
      ...(r.data.sha256 !== undefined ? { sha256: r.data.sha256 } : {}),
      ...(r.data.allow_pickle ? { allowPickle: true } : {}),
    });
    return c.json(version, version.status === "complete" ? 200 : 202);
  });
  app.get("/:id", async (c) => c.json(await mirror.get(c.req.param("id"))));
  app.delete("/:id", async (c) => c.json(await mirror.remove(c.req.param("id"))));
  return app;
}

export function mirrorFileRoutes(deps: MirrorGuard, mirror: MirrorService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.on(["GET", "HEAD"], "/*", async (c) => {
    if (!(await mayReadMirror(deps, c.req.raw))) throw new AppError("unauthorized");
    return await serveMirrorFile(mirror, c.req.raw, "/mirror/");
  });
  return app;
}
