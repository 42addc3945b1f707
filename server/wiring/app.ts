/**
 * Builds the control plane's HTTP app from the composition root's record, handing each room
 * only the collaborators it uses. Nothing here listens, reads the environment or opens files:
 * that is serve.ts's job, so tests build the same app in-process.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { AppDeps } from "./deps.ts";
import { newUlid } from "../../core/ulid.ts";
import { errorResponseFor, makeOnError } from "../errors.ts";
import { AppError } from "../../core/errors.ts";
import { type AdminDeps, adminRoutes } from "../routes/admin/mod.ts";
import { authRoutes } from "../routes/auth.ts";
import { healthRoutes } from "../routes/health.ts";
import { messagesRoutes } from "../routes/messages.ts";
import { rerankRoutes } from "../routes/rerank.ts";
import { kbSearchRoutes } from "../routes/kb.ts";
import { responsesRoutes } from "../routes/responses.ts";
import { filesRoutes } from "../routes/files.ts";
import { batchesRoutes } from "../routes/batches.ts";
import { mirrorFileRoutes } from "../routes/mirror_files.ts";
import { mirrorRoutes } from "../routes/admin/mirror.ts";
import { v1Routes } from "../routes/v1.ts";
import { accessLog } from "../observe/access_log.ts";
import { portalRoutes } from "../portal/portal.tsx";
import type { DispatchDeps } from "../router/dispatch.ts";
import { mcpRoutes } from "../mcp/mcp_route.ts";
import { scimRoutes } from "../scim/scim_routes.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import { AnswerCacheStep } from "../cache/cache_step.ts";
import { gatewayEmbedder } from "../cache/gateway_embedder.ts";
import { cacheOff } from "../accounting/limits.ts";
import { JudgeAsker } from "../guard/judge/ask_judge.ts";

export function buildApp(deps: AppDeps): Hono<AppEnv> {
  const { logger, keys, catalog, people, limits, replicas, adminTokens, mirror, responses } = deps;
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
  app.route("/v1", v1Routes({ keys, catalog, people, limits, dispatch, kb: deps.kb }));
  app.route("/v1", messagesRoutes({ keys, limits, catalog, people, dispatch }));
  app.route(
    "/v1",
    responsesRoutes({
      keys,
      limits,
      dispatch,
      responses,
      clock: deps.clock,
      logger,
      kb: deps.kb,
    }),
  );
  app.route("/v1", filesRoutes({ keys, files: deps.files, limits: deps.fileLimits }));
  app.route("/v1", batchesRoutes({ keys, batches: deps.batches, limits }));
  app.route("/v1", kbSearchRoutes({ keys, limits, kb: deps.kb }));
  app.route("/", rerankRoutes({ keys, limits, catalog, dispatch }));
  // Before the admin API's `authenticate`: the mirror answers to the admin token alone.
  app.route("/api/v1/mirror", mirrorRoutes({ adminTokens }, mirror));
  app.route(
    "/mcp",
    mcpRoutes({
      keys,
      people,
      gateway: deps.mcp.gateway,
      maxBytes: deps.mcp.maxBytes,
      publicUrl: deps.portal?.publicUrl ?? "",
    }),
  );
  app.route("/mirror", mirrorFileRoutes({ adminTokens }, mirror));
  app.route("/api/v1", adminRoutes(admin));
  app.route("/auth", authRoutes({ people }));
  app.route("/scim/v2", scimRoutes(people.scim));
  if (deps.portal) {
    app.route(
      "/",
      portalRoutes(
        { ...admin, limits, dispatch, samples: deps.metrics.recent },
        deps.portal,
      ),
    );
  }
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

/** What dispatch() uses; the batch runner (serve.ts) sends its lines through it too. */
export function dispatchDeps(d: AppDeps): DispatchDeps {
  const { catalog, replicas, routing, models, people, usage, metrics, notifier, clock, limits } = d;
  const guard = {
    policies: d.guardPolicies,
    chainOf: (k: ApiKeyInfo) => people.tenancy.chain(k),
    judges: {
      asker: new JudgeAsker({ catalog, replicas }),
      judged: metrics.judged.bind(metrics),
      late: (model: string, why: string) =>
        d.logger.warn("a guardrail judge gave no verdict in its budget", { model, why }),
    },
  };
  const deps: DispatchDeps = {
    catalog,
    replicas,
    routing,
    models,
    people,
    usage,
    metrics,
    notifier,
    clock,
    limits,
    guard,
    answers: new AnswerCacheStep({
      cache: d.answerCache,
      // No level has turned the cache on: a request costs nothing more than this test.
      policyOf: (k) =>
        people.limits.anyCache ? people.limits.cachePolicy(people.tenancy.chain(k)) : cacheOff,
      // Questions are embedded through this very path, as the gateway's own requests.
      embed: gatewayEmbedder(() => deps),
      missed: (model) => metrics.answerCacheMiss(model),
    }),
  };
  return deps;
}

function adminDeps(d: AppDeps): AdminDeps {
  const { people, adminTokens, keys, catalog, replicas, routing, store, clock, guardPolicies } = d;
  const { nodes, modelServices, settings, keyOwners, notifySender, mcp, kb } = d;
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
    mcp,
    guardPolicies,
    kb,
  };
}
