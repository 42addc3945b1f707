/**
 * The mirror over HTTP. Admin API: /api/v1/mirror (list, add, show, remove), behind the admin
 * token. Files: GET/HEAD /mirror/<org>/<repo>/<commit>/<path> with Range, for nodes.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { readJsonBody } from "../router/read_body.ts";
import { serveFile } from "../weights/serve_file.ts";
import type { MirrorService } from "../weights/mirror.ts";

const addInput = z.strictObject({
  source: z.string().min(1).max(2000),
  sha256: z.string().max(64).optional(),
  allow_pickle: z.boolean().optional(),
});

/**
 * Who may read mirrored files. Today: an admin token. Nodes will present their own credential
 * (from the join); accepting it is a second check here, not a change to the routes.
 */
export async function mayReadMirror(deps: AppDeps, req: Request): Promise<boolean> {
  const token = bearerToken(req);
  return token !== undefined && await deps.adminTokens.check(token);
}

export function mirrorAdminRoutes(deps: AppDeps, mirror: MirrorService): Hono<AppEnv> {
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

export function mirrorFileRoutes(deps: AppDeps, mirror: MirrorService): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const serve = async (req: Request, rawPath: string) => {
    if (!(await mayReadMirror(deps, req))) throw new AppError("unauthorized");
    let rel: string;
    try {
      rel = decodeURIComponent(rawPath);
    } catch {
      throw new AppError("not_found", { path: `/mirror/${rawPath}` });
    }
    // Only names a complete version lists are served, so `..` or a stray file never is.
    const file = rel.split("/").some((s) => s === ".." || s === "." || s === "")
      ? null
      : await mirror.fileFor(rel);
    if (!file) throw new AppError("not_found", { path: `/mirror/${rel}` });
    return await serveFile(req, file);
  };
  // The raw (still percent-encoded) path: decoded once, here.
  app.on(
    ["GET", "HEAD"],
    "/*",
    (c) => serve(c.req.raw, new URL(c.req.url).pathname.replace(/^\/mirror\//, "")),
  );
  return app;
}
