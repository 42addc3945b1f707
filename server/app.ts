/**
 * Builds the control plane's HTTP app from the composition root's record, handing each room
 * only the collaborators it uses. Nothing here listens, reads the environment or opens files:
 * that is serve.ts's job, so tests build the same app in-process.
 */
import { Hono } from "hono";
import type { AppEnv } from "./app_env.ts";
import type { AppDeps } from "./deps.ts";
import { newUlid } from "../core/ulid.ts";
import { errorResponseFor, makeOnError } from "./errors.ts";
import { AppError } from "../core/errors.ts";
import { type AdminDeps, adminRoutes } from "./routes/admin/mod.ts";
import { authRoutes } from "./routes/auth.ts";
import { healthRoutes } from "./routes/health.ts";
import { messagesRoutes } from "./routes/messages.ts";
import { rerankRoutes } from "./routes/rerank.ts";
import { mirrorFileRoutes } from "./routes/mirror_files.ts";
import { v1Routes } from "./routes/v1.ts";
import { accessLog } from "./observe/access_log.ts";
import { portalRoutes } from "./portal/portal.tsx";
import type { DispatchDeps } from "./router/dispatch.ts";

export function buildApp(deps: AppDeps): Hono<AppEnv> {
  const { logger, keys, catalog, people, limits, replicas, adminTokens, mirror } = deps;
  const dispatch = dispatchDeps(deps);
  const admin = adminDeps(deps);
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    const requestId = newUlid();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("x-request-id", requestId);
  });
  app.use("*", accessLog(logger.child({ component: "access" }), deps.metrics, deps.tracer));
  app.route("/", healthRoutes({ replicas, leadership: deps.leadership }));
  app.route("/v1", v1Routes({ keys, catalog, people, limits, dispatch }));
  app.route("/v1", messagesRoutes({ keys, limits, dispatch }));
  app.route("/", rerankRoutes({ keys, limits, catalog, dispatch }));
  app.route("/mirror", mirrorFileRoutes({ adminTokens }, mirror));
  app.route("/api/v1", adminRoutes(admin));
  app.route("/auth", authRoutes({ people }));
  if (deps.portal) app.route("/", portalRoutes({ ...admin, limits, dispatch }, deps.portal));
  app.notFound((c) =>
    errorResponseFor(
      c.req.path,
      new AppError("not_found", { path: c.req.path }),
      c.get("requestId"),
    )
  );
  app.onError(makeOnError(logger));
  return app;
}

function dispatchDeps(d: AppDeps): DispatchDeps {
  const { catalog, replicas, routing, models, people, usage, metrics, notifier, clock, limits } = d;
  return { catalog, replicas, routing, models, people, usage, metrics, notifier, clock, limits };
}

function adminDeps(d: AppDeps): AdminDeps {
  const { people, adminTokens, keys, catalog, replicas, routing, store, clock } = d;
  const { nodes, modelServices, settings, keyOwners, notifySender, mirror } = d;
  return {
    people,
    adminTokens,
    keys,
    catalog,
    replicas,
    routing,
    store,
    clock,
    nodes,
    modelServices,
    settings,
    keyOwners,
    notifySender,
    mirror,
  };
}
