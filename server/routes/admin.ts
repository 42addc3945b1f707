/**
 * The admin API under /api/v1. Every route is declared through the registry (so it is in the
 * OpenAPI document at /api/v1/openapi.json) and sits behind `authenticate`: an admin token, a
 * sign-in session (with CSRF on changes) or a person's own API key (read-only). Each route then
 * checks the caller's role and tenant (server/tenancy/access.ts).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { authenticate } from "../auth/actor.ts";
import type { AppDeps } from "../deps.ts";
import { requireRead } from "../tenancy/access.ts";
import { keyRoutes } from "./admin/keys.ts";
import { limitsRoutes } from "./admin/limits.ts";
import { openApiDocument } from "./admin/openapi.ts";
import { peopleRoutes } from "./admin/people.ts";
import { recordRoutes } from "./admin/records.ts";
import { AdminRegistry } from "./admin/registry.ts";
import { settingsRoutes } from "./admin/settings.ts";
import { treeRoutes } from "./admin/tree.ts";
import { nodeAdminRoutes } from "../nodes/admin_routes.ts";
import { modelAdminRoutes } from "../models/admin_routes.ts";
import { opsAdminRoutes } from "./admin_ops.ts";

/** What the admin API serves, from the composition root's record. */
export type AdminDeps = Pick<
  AppDeps,
  | "people"
  | "adminTokens"
  | "keys"
  | "catalog"
  | "replicas"
  | "routing"
  | "store"
  | "clock"
  | "nodes"
  | "modelServices"
  | "settings"
  | "keyOwners"
  | "notifySender"
>;

export function adminRoutes(deps: AdminDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const registry = new AdminRegistry(app, (...a) => deps.people.audit.record(...a));
  let document: Record<string, unknown> | undefined;
  // The document describes the API; it holds nothing of any tenant, so it needs no credential.
  app.get("/openapi.json", (c) => c.json(document ??= openApiDocument(registry.specs)));

  const { people, adminTokens, keys, catalog, store, clock } = deps;
  const credentials = { people, adminTokens, keys };
  app.use("*", async (c, next) => {
    c.set("actor", await authenticate(credentials, c));
    await next();
  });

  treeRoutes(registry, { people });
  peopleRoutes(registry, { people });
  keyRoutes(registry, { people, keys, clock });
  limitsRoutes(registry, { people, keys });
  recordRoutes(registry, { people, keys, store });
  settingsRoutes(registry, { people });
  nodeAdminRoutes(registry, deps.nodes);
  modelAdminRoutes(registry, { catalog, modelServices: deps.modelServices });
  const { keyOwners, settings, notifySender } = deps;
  opsAdminRoutes(registry, { clock, store, keyOwners, settings, notifySender });

  registry.add({
    method: "get",
    path: "/models",
    tag: "models",
    summary: "Models and their replicas",
    access: "administrator, operator",
  }, (c, { actor }) => {
    requireRead(actor, "staff", { orgId: null, teamId: null }, c.req.path);
    return c.json({
      data: deps.catalog.list().map((m) => ({
        ...m,
        replicas: deps.replicas.forModel(m.name).map((r) => deps.replicas.view(r)),
        queued: deps.routing.admission.waiting(m.name),
      })),
    });
  });
  return app;
}
