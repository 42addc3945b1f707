/**
 * Mirrored files over HTTP: GET/HEAD /mirror/<org>/<repo>/<commit>/<path> with Range, for an
 * operator. Nodes read them at /cluster/v1/mirror/… on the cluster listener; the mirror's admin
 * API is admin/mirror.ts.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import type { AdminTokens } from "../auth/admin_tokens.ts";
import { AppError } from "../../core/errors.ts";
import { serveMirrorFile } from "../weights/serve_mirror_file.ts";
import type { MirrorService } from "../weights/mirror.ts";

/**
 * Who may read mirrored files here: an admin token (an operator with curl). Nodes read the same
 * files on the cluster listener with their own credential (`server/nodes/cluster_app.ts`), so a
 * node credential never travels outside the cluster's TLS.
 */
export async function mayReadMirror(
  deps: { adminTokens: AdminTokens },
  req: Request,
): Promise<boolean> {
  const token = bearerToken(req);
  return token !== undefined && await deps.adminTokens.check(token);
}

export function mirrorFileRoutes(
  deps: { adminTokens: AdminTokens },
  mirror: MirrorService,
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.on(["GET", "HEAD"], "/*", async (c) => {
    if (!(await mayReadMirror(deps, c.req.raw))) throw new AppError("unauthorized");
    return await serveMirrorFile(mirror, c.req.raw, "/mirror/");
  });
  return app;
}
