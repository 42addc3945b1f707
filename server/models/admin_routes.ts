/**
 * The admin API for the models service (behind the admin token, mounted by routes/admin.ts):
 * plan, add, serve, explain, context / gpus / resources, stop / start / restart, remove, and the
 * replica list. Bodies are snake_case as in YAML.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { readJsonBody } from "../router/read_body.ts";
import { engines } from "./model_schema.ts";
import { parseModel, parseModelList, parseModelYaml } from "./model_yaml.ts";
import type { PlanOptions } from "./plan.ts";

const count = z.number().int().min(1);
const planInput = z.strictObject({
  source: z.string().min(1),
  name: z.string().min(1).optional(),
  context: count.optional(),
  slots: count.optional(),
  replicas: z.number().int().min(0).optional(),
  on_demand: z.boolean().optional(),
  embeddings: z.boolean().optional(),
  engine: z.enum(engines).optional(),
});
const contextInput = z.strictObject({
  tokens: count.optional(),
  slots: count.optional(),
  max_output: count.optional(),
});
const gpusInput = z.strictObject({ gpus: count, profile: z.number().int().min(0).optional() });
const resourcesInput = z.strictObject({
  memory_gb: z.number().positive().optional(),
  cores: count.optional(),
  profile: z.number().int().min(0).optional(),
});

export function modelAdminRoutes(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const svc = () => {
    if (!deps.modelServices) {
      throw new AppError("conflict", {
        detail: "this control plane places no models (cluster_listen is empty)",
      });
    }
    return deps.modelServices;
  };
  const body = (c: { req: { raw: Request } }) => readJsonBody(c.req.raw, 1024 * 1024);

  const planOpts = (p: z.infer<typeof planInput>): PlanOptions => {
    const o: PlanOptions = {};
    if (p.name) o.name = p.name;
    if (p.context) o.context = p.context;
    if (p.slots) o.slots = p.slots;
    if (p.replicas !== undefined) o.replicas = p.replicas;
    if (p.on_demand !== undefined) o.onDemand = p.on_demand;
    if (p.embeddings !== undefined) o.embeddings = p.embeddings;
    if (p.engine) o.engine = p.engine;
    return o;
  };

  app.get("/models/plan", async (c) => {
    const q = c.req.query();
    const num = (k: string) => (q[k] ? Number(q[k]) : undefined);
    const p = parse(planInput, {
      source: q.source,
      ...(q.name ? { name: q.name } : {}),
      ...(q.context ? { context: num("context") } : {}),
      ...(q.slots ? { slots: num("slots") } : {}),
      ...(q.replicas ? { replicas: num("replicas") } : {}),
      ...(q.on_demand ? { on_demand: q.on_demand === "true" } : {}),
      ...(q.embeddings ? { embeddings: q.embeddings === "true" } : {}),
      ...(q.engine ? { engine: q.engine } : {}),
    });
    return c.json(await svc().plan(p.source, planOpts(p)));
  });
  app.post("/models/plan", async (c) => {
    const p = parse(planInput, await body(c));
    return c.json(await svc().plan(p.source, planOpts(p)));
  });
  app.post("/models/serve", async (c) => {
    const p = parse(planInput, await body(c));
    const r = await svc().serve(p.source, planOpts(p));
    return c.json(r, r.added ? 201 : 422);
  });
  /** A model, a list, `{models: [...]}`, or `{yaml: "..."}` (what `ctl model add -f` sends). */
  app.post("/models", async (c) => {
    const b = await body(c) as Record<string, unknown>;
    const defs = typeof b.yaml === "string" && Object.keys(b).length === 1
      ? parseModelYaml(b.yaml)
      : Array.isArray(b)
      ? parseModelList(b)
      : "models" in b && Object.keys(b).length === 1
      ? parseModelList(b.models)
      : [parseModel(b)];
    const added = await svc().add(defs, { replace: c.req.query("replace") === "true" });
    return c.json({ data: added.map((e) => ({ name: e.name, def: e.def })) }, 201);
  });
  app.get(
    "/models/:name{.+}/explain",
    async (c) => c.json(await svc().explain(c.req.param("name"))),
  );
  app.post("/models/:name{.+}/context", async (c) => {
    const p = parse(contextInput, await body(c));
    return c.json(
      await svc().context(c.req.param("name"), {
        ...(p.tokens ? { tokens: p.tokens } : {}),
        ...(p.slots ? { slots: p.slots } : {}),
        ...(p.max_output ? { maxOutput: p.max_output } : {}),
      }),
    );
  });
  app.post("/models/:name{.+}/gpus", async (c) => {
    const p = parse(gpusInput, await body(c));
    return c.json(await svc().gpus(c.req.param("name"), p.gpus, p.profile ?? 0));
  });
  app.post("/models/:name{.+}/resources", async (c) => {
    const p = parse(resourcesInput, await body(c));
    return c.json(
      await svc().resources(c.req.param("name"), {
        ...(p.memory_gb ? { memoryGb: p.memory_gb } : {}),
        ...(p.cores ? { cores: p.cores } : {}),
      }, p.profile ?? 0),
    );
  });
  app.post(
    "/models/:name{.+}/stop",
    async (c) => c.json(await svc().setStopped(c.req.param("name"), true)),
  );
  app.post(
    "/models/:name{.+}/start",
    async (c) => c.json(await svc().setStopped(c.req.param("name"), false)),
  );
  /** One request straight to a ready replica: what `ctl model serve` waits for. */
  app.post(
    "/models/:name{.+}/smoke",
    async (c) => c.json(await svc().smoke(c.req.param("name"))),
  );
  app.post(
    "/models/:name{.+}/restart",
    async (c) => c.json(await svc().restart(c.req.param("name"))),
  );
  app.delete(
    "/models/:name{.+}",
    async (c) => c.json(await svc().remove(c.req.param("name"), c.req.query("purge") === "true")),
  );
  app.get("/replicas", (c) => {
    const model = c.req.query("model");
    return c.json({ data: svc().replicas(model || undefined) });
  });
  return app;
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const path = issue.path.join(".");
  throw new AppError(
    "invalid_request",
    { detail: `${path || "body"}: ${issue.message}` },
    path || null,
  );
}
