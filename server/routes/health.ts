/** Probes for load balancers and orchestrators. */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { ReplicaTable } from "../router/replicas.ts";

export function healthRoutes(deps: { replicas: Pick<ReplicaTable, "anyReady"> }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The process is up and serving HTTP.
  app.get("/health", (c) => c.json({ status: "ok" }));
  // A request for some model could be routed now.
  app.get("/ready", (c) => {
    const ready = deps.replicas.anyReady();
    return c.json({ status: ready ? "ready" : "no model can be routed to yet" }, ready ? 200 : 503);
  });
  // One control plane for now, and it is the one that places work.
  app.get("/leader", (c) => c.json({ leader: true }));
  return app;
}
