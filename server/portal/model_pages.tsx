/**
 * The models admin page and its forms. Reading: the catalog, the router's replicas and the models
 * service's placements (GET /replicas). Changing: each form calls the models admin API in-process
 * with the form's CSRF token, so role, validation and audit are the API's own.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { PortalDeps } from "./portal_deps.ts";
import type { ReplicaRow } from "../models/model_services.ts";
import type { Plan } from "../models/plan.ts";
import { canWrite } from "../tenancy/access.ts";
import type { AdminCall } from "./admin_call.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { contextOf, stateOf } from "./model_rows.ts";
import { AppError } from "../../core/errors.ts";
import { modelLimits } from "../models/model_limits.ts";
import { keptMs } from "../observe/recent_samples.ts";
import { ModelPage } from "./pages/model_page.tsx";
import { EngineLogs, pageLogLines, type ReplicaLog } from "./pages/engine_log.tsx";
import { type AdminModelRow, AdminModelsPage, AdminModelsTable } from "./pages/admin_models.tsx";
import { RemovePage, type ServeFields } from "./pages/model_forms.tsx";
import { attempt, fragment, type Notice, page, readForm } from "./render.ts";

type Gate = (c: Context<AppEnv>) => Promise<{ ctx: PortalCtx; v: Viewer }>;

/** The serve form's fields as the plan and serve bodies want them (empty fields left out). */
function planBody(f: ServeFields): Record<string, unknown> {
  const n = (s: string) => (s.trim() === "" ? undefined : Number(s));
  return {
    source: f.source.trim(),
    ...(f.name.trim() ? { name: f.name.trim() } : {}),
    ...(n(f.context) !== undefined ? { context: n(f.context) } : {}),
    ...(n(f.slots) !== undefined ? { slots: n(f.slots) } : {}),
  };
}

export function modelPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { gate: Gate; call: AdminCall },
): void {
  const { gate, call } = io;
  const placements = async (c: Context<AppEnv>): Promise<ReplicaRow[]> =>
    deps.modelServices ? ((await call(c, undefined, "GET", "/replicas")).data as ReplicaRow[]) : [];
  const rows = async (c: Context<AppEnv>): Promise<AdminModelRow[]> => {
    const placed = await placements(c);
    return deps.catalog.list().map((entry) => ({
      entry,
      state: stateOf(deps, entry),
      replicas: deps.replicas.forModel(entry.name).map((r) => deps.replicas.view(r)),
      queued: deps.routing.admission.waiting(entry.name),
      placements: placed.filter((p) => p.model === entry.name),
    }));
  };
  const forms = (v: Viewer) => ({
    csrf: v.csrf,
    canWrite: canWrite(v.actor, "staff", { orgId: null, teamId: null }),
  });
  const modelsPage = async (
    c: Context<AppEnv>,
    ctx: PortalCtx,
    v: Viewer,
    extra: {
      notice?: Notice;
      serve?: { fields: ServeFields; plan?: Plan; notice?: Notice };
    } = {},
  ) =>
    await page(
      c,
      <AdminModelsPage ctx={ctx} rows={await rows(c)} forms={forms(v)} {...extra} />,
      extra.notice?.kind === "error" || extra.serve?.notice?.kind === "error" ? 400 : 200,
    );
  const done = (ctx: PortalCtx, r: { ok: true } | { ok: false; notice: Notice }): Notice =>
    r.ok ? { kind: "ok", text: ctx.words.t("saved") } : r.notice;
  const modelPath = (c: Context<AppEnv>) => `/models/${encodeURIComponent(c.req.param("name")!)}`;
  /** Each replica's engine log (placed ones, starting ones too, and those the router holds). */
  const engineLogs = async (c: Context<AppEnv>, row: AdminModelRow): Promise<ReplicaLog[]> => {
    if (!deps.nodes) return [];
    const ids = new Set([
      ...row.placements.map((p) => p.id),
      ...row.replicas.map((r) => r.id.slice(r.id.lastIndexOf("/") + 1)),
    ]);
    const logs = await Promise.all([...ids].map(async (rid) => {
      try {
        const path = `${modelPath(c)}/replicas/${
          encodeURIComponent(rid)
        }/log?lines=${pageLogLines}`;
        return (await call(c, undefined, "GET", path)) as unknown as ReplicaLog;
      } catch (e) {
        // A replica placed but not (yet) on any node has no log to show.
        if (e instanceof AppError && e.code === "not_found") return undefined;
        throw e;
      }
    }));
    return logs.filter((l) => l !== undefined);
  };

  app.get("/admin/models", async (c) => {
    const { ctx, v } = await gate(c);
    if (c.req.query("part") === "live") {
      return await fragment(
        c,
        <AdminModelsTable ctx={ctx} rows={await rows(c)} forms={forms(v)} />,
      );
    }
    return await modelsPage(c, ctx, v);
  });
  for (const verb of ["start", "stop", "restart"]) {
    app.post(`/admin/models/:name{.+}/${verb}`, async (c) => {
      const { ctx, v } = await gate(c);
      const form = await readForm(c);
      const r = await attempt(ctx, () => call(c, form._csrf, "POST", `${modelPath(c)}/${verb}`));
      return await modelsPage(c, ctx, v, { notice: done(ctx, r) });
    });
  }
  app.post("/admin/models/:name{.+}/context", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const n = (k: string) => (form[k]?.trim() ? Number(form[k]) : undefined);
    const body = {
      ...(n("tokens") !== undefined ? { tokens: n("tokens") } : {}),
      ...(n("max_output") !== undefined ? { max_output: n("max_output") } : {}),
    };
    const r = await attempt(
      ctx,
      () => call(c, form._csrf, "POST", `${modelPath(c)}/context`, body),
    );
    return await modelsPage(c, ctx, v, { notice: done(ctx, r) });
  });
  app.get("/admin/models/:name{.+}/remove", async (c) => {
    const { ctx, v } = await gate(c);
    if (!forms(v).canWrite) return c.notFound();
    return await page(c, <RemovePage ctx={ctx} csrf={v.csrf} name={c.req.param("name")} />);
  });
  app.post("/admin/models/:name{.+}/remove", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const purge = form.purge === "true" ? "?purge=true" : "?purge=false";
    const r = await attempt(ctx, () => call(c, form._csrf, "DELETE", `${modelPath(c)}${purge}`));
    return await modelsPage(c, ctx, v, { notice: done(ctx, r) });
  });

  app.get("/admin/models/:name{.+}", async (c) => {
    const { ctx } = await gate(c);
    const name = c.req.param("name");
    const row = (await rows(c)).find((r) => r.entry.name === name);
    if (!row) throw new AppError("not_found", { path: c.req.path });
    if (c.req.query("part") === "log") {
      return await fragment(c, <EngineLogs ctx={ctx} logs={await engineLogs(c, row)} />);
    }
    const limits = modelLimits(row.entry);
    const to = deps.samples.now();
    const nodes = deps.nodes ? await deps.nodes.hub.list() : [];
    const errors = nodes.flatMap((n) =>
      n.replicas.filter((s) => s.model === name && s.error).map((s) => ({
        replica: s.replicaId,
        node: n.name,
        text: s.error!,
      }))
    );
    return await page(
      c,
      <ModelPage
        ctx={ctx}
        data={{
          row,
          price: deps.people.prices.priceOf(name),
          context: contextOf(row.entry),
          maxOutput: typeof limits.max_output_tokens === "number" ? limits.max_output_tokens : null,
          samples: deps.samples.modelSeries(name),
          from: to - keptMs,
          to,
          errors,
          logs: await engineLogs(c, row),
        }}
      />,
    );
  });

  const serveFields = (form: Record<string, string>): ServeFields => ({
    source: form.source ?? "",
    name: form.name ?? "",
    context: form.context ?? "",
    slots: form.slots ?? "",
  });
  app.post("/admin/models/plan", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const fields = serveFields(form);
    const r = await attempt(
      ctx,
      () => call(c, form._csrf, "POST", "/models/plan", planBody(fields)),
    );
    return await modelsPage(c, ctx, v, {
      serve: r.ok ? { fields, plan: r.value as unknown as Plan } : { fields, notice: r.notice },
    });
  });
  app.post("/admin/models/serve", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const fields = serveFields(form);
    const r = await attempt(
      ctx,
      () => call(c, form._csrf, "POST", "/models/serve", planBody(fields)),
    );
    if (!r.ok) return await modelsPage(c, ctx, v, { serve: { fields, notice: r.notice } });
    const out = r.value as { plan: Plan; added: boolean };
    if (!out.added) {
      // Refused now though the plan was fine a moment ago (the cluster changed): show why.
      return await modelsPage(c, ctx, v, {
        serve: {
          fields,
          plan: out.plan,
          notice: { kind: "error", text: ctx.words.t("serve_refused") },
        },
      });
    }
    return await modelsPage(c, ctx, v, {
      notice: { kind: "ok", text: ctx.words.t("serve_added", { model: out.plan.name }) },
    });
  });
}
