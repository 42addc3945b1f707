/**
 * Builds the control plane's HTTP app from its dependencies. Nothing here listens, reads the
 * environment or opens files: that is serve.ts's job, so tests build the same app in-process.
 */
import { Hono } from "hono";
import type { AppEnv } from "./app_env.ts";
import type { AppDeps } from "./deps.ts";
import { newUlid } from "../core/ulid.ts";
import { errorResponseFor, makeOnError } from "./errors.ts";
import { AppError } from "../core/errors.ts";
import { adminRoutes } from "./routes/admin/mod.ts";
import { authRoutes } from "./routes/auth.ts";
import { healthRoutes } from "./routes/health.ts";
import { messagesRoutes } from "./routes/messages.ts";
import { rerankRoutes } from "./routes/rerank.ts";
import { mirrorFileRoutes } from "./routes/mirror_files.ts";
import { v1Routes } from "./routes/v1.ts";
import { accessLog } from "./observe/access_log.ts";
import { portalRoutes } from "./portal/portal.tsx";

export function buildApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    const requestId = newUlid();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("x-request-id", requestId);
  });
  app.use(
    "*",
    accessLog(deps.logger.child({ component: "access" }), deps.metrics, deps.tracer),
  );
  app.route("/", healthRoutes(deps));
  app.route("/v1", v1Routes(deps));
  app.route("/v1", messagesRoutes(deps));
  app.route("/", rerankRoutes(deps));
  if (deps.mirror) app.route("/mirror", mirrorFileRoutes(deps, deps.mirror));
  app.route("/api/v1", adminRoutes(deps));
  app.route("/auth", authRoutes(deps));
  if (deps.portal) app.route("/", portalRoutes(deps, deps.portal));
  app.notFound((c) =>
    errorResponseFor(
      c.req.path,
      new AppError("not_found", { path: c.req.path }),
      c.get("requestId"),
    )
  );
  app.onError(makeOnError(deps.logger));
  return app;
}
