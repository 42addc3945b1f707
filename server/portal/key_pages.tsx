/**
 * The keys pages: a person's own keys (make one, its secret shown once), and revoking one after a
 * confirm step, from the person's page or the administrators' list of every key.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { PortalDeps } from "./portal_deps.ts";
import { AppError } from "../../core/errors.ts";
import { placeOfKey } from "../tenancy/place_of_key.ts";
import { canWrite } from "../tenancy/access.ts";
import type { AdminCall } from "./admin_call.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { modelRows } from "./model_rows.ts";
import { KeysPage, RevokeKeyPage } from "./pages/keys.tsx";
import { attempt, type Notice, page, readForm, signedIn } from "./render.ts";

const dayMs = 86_400_000;

export function keyPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { load: (c: Context<AppEnv>) => Promise<PortalCtx>; call: AdminCall },
): void {
  const { load, call } = io;
  const myKeys = async (v: Viewer) =>
    (await deps.keys.list()).filter((k) => k.userId === v.person.id)
      .sort((a, b) => b.createdAt - a.createdAt);
  const keysPage = async (
    c: Context<AppEnv>,
    ctx: PortalCtx,
    v: Viewer,
    extra: { created?: { name: string; key: string }; notice?: Notice } = {},
  ) => {
    const t = deps.people.tenancy;
    const staff = v.person.orgId === null;
    const projects = [...t.projects.values()].filter((p) =>
      staff || (p.orgId === v.person.orgId && (!v.person.teamId || p.teamId === v.person.teamId))
    );
    const cap = deps.people.limits.effective(
      t.chainAbove({ kind: "person", id: v.person.id }),
    ).maxKeyTtlMs;
    return await page(
      c,
      <KeysPage
        ctx={ctx}
        viewer={v}
        data={{
          keys: await myKeys(v),
          projects,
          projectOptional: v.actor.role === "administrator",
          maxDays: cap ? Math.max(1, Math.floor(cap.value / dayMs)) : null,
          model: modelRows(deps, v.person)[0]?.name ?? null,
          ...extra,
        }}
      />,
      extra.notice?.kind === "error" ? 400 : 200,
    );
  };

  app.get("/keys", async (c) => {
    const ctx = await load(c);
    return await keysPage(c, ctx, signedIn(ctx));
  });

  app.post("/keys", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const form = await readForm(c);
    const days = Number(form.expires_days);
    const r = await attempt(ctx, () =>
      call(c, form._csrf, "POST", "/keys", {
        name: form.name ?? "",
        ...(form.project_id ? { project_id: form.project_id } : {}),
        ...(form.expires_days && Number.isFinite(days) && days > 0
          ? { expires_at: ctx.now + Math.round(days * dayMs) }
          : {}),
      }));
    if (!r.ok) return await keysPage(c, ctx, v, { notice: r.notice });
    const created = r.value as { name: string; key: string };
    return await keysPage(c, ctx, v, { created: { name: created.name, key: created.key } });
  });

  app.get("/keys/:id/revoke", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const k = await deps.keys.get(c.req.param("id"));
    // One's own key, or one the viewer may change; any other is not there.
    if (!k || (k.userId !== v.person.id && !canWrite(v.actor, "keys", placeOfKey(deps, k)))) {
      throw new AppError("not_found", { path: c.req.path });
    }
    const back = c.req.query("back") === "/admin/keys" ? "/admin/keys" : "/keys";
    return await page(c, <RevokeKeyPage ctx={ctx} csrf={v.csrf} k={k} back={back} />);
  });

  app.post("/keys/:id/revoke", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const form = await readForm(c);
    const r = await attempt(ctx, () => call(c, form._csrf, "DELETE", `/keys/${c.req.param("id")}`));
    const notice: Notice = r.ok
      ? { kind: "ok", text: ctx.words.t("key_revoked", { name: String(r.value.name ?? "") }) }
      : r.notice;
    if (form.back === "/admin/keys") {
      return c.redirect("/admin/keys", 303);
    }
    return await keysPage(c, ctx, v, { notice });
  });
}
