/** Probes for load balancers and orchestrators. */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { LeaderGate } from "../control/leadership.ts";
import type { ReplicaTable } from "../router/replicas.ts";

export function healthRoutes(deps: {
  replicas: Pick<ReplicaTable, "anyReady">;
  leadership: LeaderGate;
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The process is up and serving HTTP.
  app.get("/health", (c) => c.json({ status: "ok" }));
  // A request for some model could be routed now, by this control plane, leader or standby:
  // every one routes from its own table, so a load balancer may send to any that says ready.
  app.get("/ready", (c) => {
    const ready = deps.replicas.anyReady();
    return c.json({
      status: ready ? "ready" : "no model can be routed to yet",
      leader: deps.leadership.isLeader,
    }, ready ? 200 : 503);
  });
  // Which control plane leads (from the store's lease), and whether it is this one.
  app.get("/leader", async (c) => {
    const { leadership } = deps;
    let leader;
    try {
      leader = await leadership.leader();
    } catch {
      leader = undefined; // the store cannot be read: say what this control plane knows
    }
    return c.json({
      self: { id: leadership.id, leader: leadership.isLeader, epoch: leadership.epoch },
      leader: leader ? { id: leader.id, url: leader.url, epoch: leader.epoch } : null,
    });
  });
  return app;
}
