import { Hono } from "hono";
import { assertEquals } from "../../../tests/assert.ts";
import type { AppEnv } from "../../app_env.ts";
import { makeOnError } from "../../errors.ts";
import { AppError } from "../../../core/errors.ts";
import { silentLogger } from "../../../core/log.ts";
import type { Actor } from "../../tenancy/access.ts";
import { AdminRegistry, type AuditWriter } from "./registry.ts";

const operator: Actor = {
  kind: "token",
  id: "t1",
  name: "ops",
  role: "operator",
  personId: null,
  orgId: null,
  teamId: null,
} as Actor;

Deno.test("a route that declares an audit action records who changed what, before and after, only on success", async () => {
  const rows: unknown[][] = [];
  const write: AuditWriter = (...a) => Promise.resolve(void rows.push(a));
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("actor", operator);
    await next();
  });
  app.onError(makeOnError(silentLogger));
  const state: Record<string, string> = { demo: "running" };
  const registry = new AdminRegistry(app, write);
  registry.add({
    method: "post",
    path: "/models/:name/stop",
    tag: "models",
    summary: "stop",
    access: "operator",
    audit: { action: "model.stop", snapshot: (c) => ({ state: state[c.req.param("name")!] }) },
  }, (c) => {
    const name = c.req.param("name")!;
    if (!(name in state)) throw new AppError("model_not_found", { model: name });
    state[name] = "stopped";
    return c.json({ ok: true });
  });

  assertEquals((await app.request("/models/demo/stop", { method: "POST" })).status, 200);
  assertEquals(rows, [[
    operator,
    "model.stop",
    { kind: "models", id: "demo", orgId: null },
    { state: "running" },
    { state: "stopped" },
  ]]);
  assertEquals((await app.request("/models/nope/stop", { method: "POST" })).status, 404);
  assertEquals(rows.length, 1, "a refused change is not recorded as made");
});
