/**
 * The admin API under /api/v1, one file per resource here. Every route but the mirror's (mounted
 * by the app before this, `mirror.ts`: it answers to the admin token alone) is
 * declared through the registry (so it is in the OpenAPI document at /api/v1/openapi.json) and
 * sits behind `authenticate`: an admin token, a sign-in session (with CSRF on changes) or a
 * person's own API key (read-only). Each route then checks the caller's role and tenant
 * (server/tenancy/access.ts).
 */
import { Hono } from "hono";
import type { AppEnv } from "../../app_env.ts";
import { authenticate } from "../../auth/actor.ts";
import type { AdminDeps } from "./admin_deps.ts";
import { auditRoutes } from "./audit.ts";
import { backupRoutes } from "./backup.ts";
import { guardRoutes } from "./guard.ts";
import { judgeRoutes } from "./judges.ts";
import { kbRoutes } from "./kb.ts";
import { keyRoutes } from "./keys.ts";
import { limitsRoutes } from "./limits.ts";
import { mcpServerRoutes } from "./mcp.ts";
import { meRoutes } from "./me.ts";
import { modelRoutes } from "./models.ts";
import { nodeRoutes } from "./nodes.ts";
import { notifyRoutes } from "./notify.ts";
import { openApiDocument } from "./openapi.ts";
import { peopleRoutes } from "./people.ts";
import { priceRoutes } from "./prices.ts";
import { AdminRegistry } from "./registry.ts";
import { replicaRoutes } from "./replicas.ts";
import { settingsRoutes } from "./settings.ts";
import { signInRoutes } from "./sign_in.ts";
import { scimTokenRoutes } from "./scim_tokens.ts";
import { treeRoutes } from "./tree.ts";
import { usageRoutes } from "./usage.ts";

export type { AdminDeps };

export function adminRoutes(deps: AdminDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const registry = new AdminRegistry(app, (...a) => deps.people.audit.record(...a));
  let document: Record<string, unknown> | undefined;
  // The document describes the API; it holds nothing of any tenant, so it needs no credential.
  app.get("/openapi.json", (c) => c.json(document ??= openApiDocument(registry.specs)));

  const { people, adminTokens, keys } = deps;
  const credentials = { people, adminTokens, keys };
  app.use("*", async (c, next) => {
    c.set("actor", await authenticate(credentials, c));
    await next();
  });

  treeRoutes(registry, deps);
  peopleRoutes(registry, deps);
  keyRoutes(registry, deps);
  limitsRoutes(registry, deps);
  usageRoutes(registry, deps);
  auditRoutes(registry, deps);
  meRoutes(registry, deps);
  priceRoutes(registry, deps);
  signInRoutes(registry, deps);
  scimTokenRoutes(registry, deps);
  nodeRoutes(registry, deps.nodes);
  modelRoutes(registry, deps);
  replicaRoutes(registry, deps);
  settingsRoutes(registry, deps);
  notifyRoutes(registry, deps);
  backupRoutes(registry, deps);
  mcpServerRoutes(registry, { mcp: deps.mcp, audit: (...a) => deps.people.audit.record(...a) });
  guardRoutes(registry, deps);
  judgeRoutes(registry, deps);
  kbRoutes(registry, deps);
  return app;
}
