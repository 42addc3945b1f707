/**
 * The mirror's admin API, /api/v1/mirror (list, add, show, remove), behind the admin token. It
 * is not declared through the registry, so it is not in the OpenAPI document; the mirrored files
 * themselves are served by ../mirror_files.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../../app_env.ts";
import { bearerToken } from "../../auth/admin_tokens.ts";
import type { AdminTokens } from "../../auth/admin_tokens.ts";
import { AppError } from "../../../core/errors.ts";
import { readJsonBody } from "../../router/read_body.ts";
import type { MirrorService } from "../../weights/mirror.ts";

const addInput = z.strictObject({
  source: z.string().min(1).max(2000),
  sha256: z.string().max(64).optional(),
  allow_pickle: z.boolean().optional(),
});

export function mirrorRoutes(
  deps: { adminTokens: AdminTokens },
  mirror: MirrorService,
): Hono<AppEnv> {
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
