/**
 * Models: the list with replicas and queues, and the models service: plan, add, serve, explain,
 * context / gpus / resources, stop / start / restart, remove. Bodies are snake_case as in YAML.
 */
import { z } from "zod";
import type { AdminDeps } from "./admin_deps.ts";
import { AppError } from "../../../core/errors.ts";
import { engineNames } from "../../../core/engines/engine_traits.ts";
import type { ModelServices } from "../../models/model_services.ts";
import { parseModel, parseModelList, parseModelYaml } from "../../models/model_yaml.ts";
import type { PlanOptions } from "../../models/plan.ts";
import { requireRead, requireWrite } from "../../tenancy/access.ts";
import { parse } from "../parse_input.ts";
import type { AdminRegistry } from "./registry.ts";

const count = z.number().int().min(1);
const planInput = z.strictObject({
  source: z.string().min(1),
  name: z.string().min(1).optional(),
  context: count.optional(),
  slots: count.optional(),
  replicas: z.number().int().min(0).optional(),
  on_demand: z.boolean().optional(),
  embeddings: z.boolean().optional(),
  engine: z.enum(engineNames).optional(),
  sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "a sha256 is 64 hex digits").optional(),
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

/** Models and replicas are the cluster's: administrators and operators only. */
const cluster = { orgId: null, teamId: null };

/** The models service, or a conflict where this control plane places none. */
export function modelServicesOf(deps: Pick<AdminDeps, "modelServices">): ModelServices {
  if (!deps.modelServices) {
    throw new AppError("conflict", {
      detail: "this control plane places no models (cluster_listen is empty)",
    });
  }
  return deps.modelServices;
}

export function modelRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "catalog" | "modelServices" | "replicas" | "routing">,
): void {
  const svc = () => modelServicesOf(deps);
  const base = { tag: "models", access: "administrator, operator" };
  const name = (c: { req: { param(k: string): string | undefined } }) => c.req.param("name")!;

  const planOpts = (p: z.infer<typeof planInput>): PlanOptions => {
    const o: PlanOptions = {};
    if (p.name) o.name = p.name;
    if (p.context) o.context = p.context;
    if (p.slots) o.slots = p.slots;
    if (p.replicas !== undefined) o.replicas = p.replicas;
    if (p.on_demand !== undefined) o.onDemand = p.on_demand;
    if (p.embeddings !== undefined) o.embeddings = p.embeddings;
    if (p.engine) o.engine = p.engine;
    if (p.sha256) o.sha256 = p.sha256.toLowerCase();
    return o;
  };

  r.add({
    ...base,
    method: "get",
    path: "/models",
    summary: "Models and their replicas",
  }, (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    return c.json({
      data: deps.catalog.list().map((m) => ({
        ...m,
        replicas: deps.replicas.forModel(m.name).map((rep) => deps.replicas.view(rep)),
        queued: deps.routing.admission.waiting(m.name),
      })),
    });
  });
  r.add({
    ...base,
    method: "get",
    path: "/models/plan",
    summary: "What serving a source would mean (query: source, name, context, …)",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
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
      ...(q.sha256 ? { sha256: q.sha256 } : {}),
    });
    return c.json(await svc().plan(p.source, planOpts(p)));
  });
  r.add({
    ...base,
    method: "post",
    path: "/models/plan",
    summary: "Plan a source",
    body: planInput,
  }, async (c, { actor, body }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    return c.json(await svc().plan(body.source, planOpts(body)));
  });
  r.add({
    ...base,
    method: "post",
    path: "/models/serve",
    audit: { action: "model.serve" },
    summary: "Plan, add and start a source",
    body: planInput,
    status: 201,
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const out = await svc().serve(body.source, planOpts(body));
    return c.json(out, out.added ? 201 : 422);
  });
  /** A model, a list, `{models: [...]}`, or `{yaml: "..."}` (what `ctl model add -f` sends). */
  r.add({
    ...base,
    method: "post",
    path: "/models",
    audit: { action: "model.add" },
    summary: "Add models (an entry, a list, {models}, or {yaml})",
    body: z.unknown(),
    status: 201,
  }, async (c, { actor, body }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    const b = (body ?? {}) as Record<string, unknown>;
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
  r.add({
    ...base,
    method: "get",
    path: "/models/:name{.+}/explain",
    summary: "Every node considered and what rejected it",
  }, async (c, { actor }) => {
    requireRead(actor, "staff", cluster, c.req.path);
    return c.json(await svc().explain(name(c)));
  });
  r.add({
    ...base,
    method: "post",
    path: "/models/:name{.+}/context",
    audit: {
      action: "model.context",
      snapshot: (c) => deps.catalog.get(c.req.param("name") ?? "") ?? null,
    },
    summary: "Change context, slots or the longest answer",
    body: contextInput,
  }, async (c, { actor, body: p }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    return c.json(
      await svc().context(name(c), {
        ...(p.tokens ? { tokens: p.tokens } : {}),
        ...(p.slots ? { slots: p.slots } : {}),
        ...(p.max_output ? { maxOutput: p.max_output } : {}),
      }),
    );
  });
  r.add({
    ...base,
    method: "post",
    path: "/models/:name{.+}/gpus",
    audit: {
      action: "model.gpus",
      snapshot: (c) => deps.catalog.get(c.req.param("name") ?? "") ?? null,
    },
    summary: "Cards per replica",
    body: gpusInput,
  }, async (c, { actor, body: p }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    return c.json(await svc().gpus(name(c), p.gpus, p.profile ?? 0));
  });
  r.add({
    ...base,
    method: "post",
    path: "/models/:name{.+}/resources",
    audit: {
      action: "model.resources",
      snapshot: (c) => deps.catalog.get(c.req.param("name") ?? "") ?? null,
    },
    summary: "Memory and cores per replica",
    body: resourcesInput,
  }, async (c, { actor, body: p }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    return c.json(
      await svc().resources(name(c), {
        ...(p.memory_gb ? { memoryGb: p.memory_gb } : {}),
        ...(p.cores ? { cores: p.cores } : {}),
      }, p.profile ?? 0),
    );
  });
  const verbs = {
    stop: (n: string) => svc().setStopped(n, true),
    start: (n: string) => svc().setStopped(n, false),
    // One request straight to a ready replica: what `ctl model serve` waits for.
    smoke: (n: string) => svc().smoke(n),
    restart: (n: string) => svc().restart(n),
  };
  for (const [verb, run] of Object.entries(verbs)) {
    r.add({
      ...base,
      method: "post",
      path: `/models/:name{.+}/${verb}`,
      ...(verb === "smoke" ? {} : {
        audit: {
          action: `model.${verb}`,
          snapshot: (c) => deps.catalog.get(c.req.param("name") ?? "") ?? null,
        },
      }),
      summary: `${verb} a model`,
    }, async (c, { actor }) => {
      requireWrite(actor, "staff", cluster, c.req.path);
      return c.json(await run(name(c)));
    });
  }
  r.add({
    ...base,
    method: "delete",
    path: "/models/:name{.+}",
    audit: {
      action: "model.remove",
      snapshot: (c) => deps.catalog.get(c.req.param("name") ?? "") ?? null,
    },
    summary: "Remove a model and the files no other model uses (query purge=false: keep them)",
  }, async (c, { actor }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    // Weights no model uses any more only take disk: they go unless kept on purpose.
    return c.json(await svc().remove(name(c), c.req.query("purge") !== "false"));
  });
  r.add({
    ...base,
    method: "post",
    path: "/weights/prune",
    audit: { action: "weights.prune" },
    summary: "Every node removes the fetched weights no model uses",
  }, async (c, { actor }) => {
    requireWrite(actor, "staff", cluster, c.req.path);
    return c.json(await svc().pruneWeights());
  });
}
