/**
 * The portal's administration pages. Each asks page_access.ts (the admin API's own rules) before
 * reading anything, answers 404 to whoever may not open it, and lists only what the viewer may
 * read. Changes go through the admin API in-process, which checks again and writes the audit.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { PortalDeps } from "./portal_deps.ts";
import type { NodeView } from "../nodes/node_hub.ts";
import { placeOfKey } from "../tenancy/place_of_key.ts";
import { canGrant, canRead, canWrite } from "../tenancy/access.ts";
import { roles } from "../../db/schema.ts";
import type { SettingView } from "../settings/cluster_settings.ts";
import { settingText } from "./pages/cluster_settings.tsx";
import type { AdminCall } from "./admin_call.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { modelPages } from "./model_pages.tsx";
import { type AdminPage, mayOpen } from "./page_access.ts";
import { type CardHistory, ClusterNodes, ClusterPage } from "./pages/cluster.tsx";
import { keptMs } from "../observe/recent_samples.ts";
import { type PeopleData, PeoplePage } from "./pages/people.tsx";
import { AdminKeysPage } from "./pages/admin_keys.tsx";
import { AuditPage } from "./pages/audit.tsx";
import { changedFields } from "../audit/changed_fields.ts";
import type { AuditRow as StoredAuditRow } from "../audit/audit.ts";
import { SettingsPage } from "./pages/settings.tsx";
import { TreePage } from "./pages/tree.tsx";
import { limitsPages } from "./limits_pages.tsx";
import type { DirectoryTrial } from "../auth/ldap/try_directory.ts";
import { attempt, fragment, notFound, type Notice, page, readForm, signedIn } from "./render.ts";
import { microsPer1kOf } from "../accounting/money.ts";

export function adminPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { load: (c: Context<AppEnv>) => Promise<PortalCtx>; call: AdminCall },
): void {
  const { load, call } = io;
  const t = () => deps.people.tenancy;
  /** The viewer, if they may open this page; otherwise the page is not there. */
  const gate = async (c: Context<AppEnv>, what: AdminPage) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    if (!mayOpen(v.actor, what)) throw notFound(c.req.path);
    return { ctx, v };
  };

  // ---- cluster ----
  const nodes = async (): Promise<NodeView[] | null> =>
    deps.nodes ? await deps.nodes.hub.list() : null;
  const history = (): CardHistory => {
    const to = deps.samples.now();
    return {
      series: (node, index) => deps.samples.cardSeries(node, index),
      from: to - keptMs,
      to,
    };
  };
  const clusterPage = async (c: Context<AppEnv>, ctx: PortalCtx, v: Viewer, notice?: Notice) =>
    await page(
      c,
      <ClusterPage
        ctx={ctx}
        viewer={v}
        nodes={await nodes()}
        history={history()}
        {...(notice ? { notice } : {})}
      />,
    );
  app.get("/admin/cluster", async (c) => {
    const { ctx, v } = await gate(c, "cluster");
    if (c.req.query("part") === "live") {
      return await fragment(
        c,
        <ClusterNodes ctx={ctx} viewer={v} nodes={(await nodes()) ?? []} history={history()} />,
      );
    }
    return await clusterPage(c, ctx, v);
  });
  app.post("/admin/cluster/:id/:verb{cordon|uncordon|drain}", async (c) => {
    const { ctx, v } = await gate(c, "cluster");
    const form = await readForm(c);
    const r = await attempt(ctx, () =>
      call(
        c,
        form._csrf,
        "POST",
        `/nodes/${encodeURIComponent(c.req.param("id"))}/${c.req.param("verb")}`,
      ));
    return await clusterPage(
      c,
      ctx,
      v,
      r.ok ? { kind: "ok", text: ctx.words.t("saved") } : r.notice,
    );
  });

  // ---- models and replicas ----
  modelPages(app, deps, { gate: (c) => gate(c, "models"), call });

  // ---- people ----
  const peopleData = (v: Viewer): PeopleData => {
    const a = v.actor;
    const orgs = [...t().orgs.values()].filter((o) =>
      canRead(a, "tree", { orgId: o.id, teamId: null })
    );
    const teams = [...t().teams.values()].filter((x) =>
      canWrite(a, "people", { orgId: x.orgId, teamId: x.id, personId: null })
    );
    return {
      people: [...t().people.values()].filter((p) =>
        canRead(a, "people", { orgId: p.orgId, teamId: p.teamId, personId: p.id })
      ).sort((x, y) => x.username.localeCompare(y.username)),
      orgs: orgs.filter((o) =>
        a.role === "administrator" ||
        canWrite(a, "people", { orgId: o.id, teamId: null, personId: null }) ||
        teams.some((x) => x.orgId === o.id)
      ),
      teams,
      grantable: roles.filter((r) => canGrant(a, r)),
      canWrite: !a.readOnly && (a.role === "administrator" || a.role === "tenant_admin"),
    };
  };
  const peoplePage = async (
    c: Context<AppEnv>,
    ctx: PortalCtx,
    v: Viewer,
    extra: Partial<PeopleData> = {},
  ) =>
    await page(
      c,
      <PeoplePage
        ctx={ctx}
        viewer={v}
        data={{ ...peopleData(v), ...extra }}
        allTeams={[...t().teams.values()]}
      />,
      extra.notice?.kind === "error" ? 400 : 200,
    );
  app.get("/admin/people", async (c) => {
    const { ctx, v } = await gate(c, "people");
    return await peoplePage(c, ctx, v);
  });
  app.post("/admin/people", async (c) => {
    const { ctx, v } = await gate(c, "people");
    const form = await readForm(c);
    const [kind, id] = (form.place ?? "").split(":");
    const team = kind === "team" ? t().teams.get(id ?? "") : undefined;
    const orgId = kind === "org" ? id : team?.orgId;
    const r = await attempt(ctx, () =>
      call(c, form._csrf, "POST", "/people", {
        username: form.username ?? "",
        ...(form.email ? { email: form.email } : {}),
        role: form.role ?? "member",
        org_id: orgId ?? null,
        team_id: team?.id ?? null,
        ...(form.password ? { password: form.password } : {}),
      }));
    if (!r.ok) return await peoplePage(c, ctx, v, { notice: r.notice });
    const made = r.value as { username: string; password?: string };
    return await peoplePage(c, ctx, v, {
      created: { name: made.username, ...(made.password ? { password: made.password } : {}) },
    });
  });
  app.post("/admin/people/:id/state", async (c) => {
    const { ctx, v } = await gate(c, "people");
    const form = await readForm(c);
    const r = await attempt(
      ctx,
      () =>
        call(c, form._csrf, "PATCH", `/people/${encodeURIComponent(c.req.param("id"))}`, {
          state: form.state === "suspended" ? "suspended" : "active",
        }),
    );
    return await peoplePage(c, ctx, v, {
      notice: r.ok ? { kind: "ok", text: ctx.words.t("saved") } : r.notice,
    });
  });

  // ---- organisations, teams, projects, limits ----
  const treePage = async (c: Context<AppEnv>, ctx: PortalCtx, v: Viewer, notice?: Notice) => {
    const a = v.actor;
    const orgs = [...t().orgs.values()].filter((o) =>
      canRead(a, "tree", { orgId: o.id, teamId: null })
    );
    const teams = [...t().teams.values()].filter((x) =>
      canRead(a, "tree", { orgId: x.orgId, teamId: x.id })
    );
    return await page(
      c,
      <TreePage
        ctx={ctx}
        viewer={v}
        data={{
          orgs,
          teams,
          projects: [...t().projects.values()].filter((p) =>
            canRead(a, "tree", { orgId: p.orgId, teamId: p.teamId })
          ),
          mayCreateOrg: a.role === "administrator",
          teamOrgs: orgs.filter((o) => canWrite(a, "tree", { orgId: o.id, teamId: null })),
          projectTeams: teams.filter((x) => canWrite(a, "tree", { orgId: x.orgId, teamId: x.id })),
          ...(notice ? { notice } : {}),
        }}
      />,
      notice?.kind === "error" ? 400 : 200,
    );
  };
  app.get("/admin/tree", async (c) => {
    const { ctx, v } = await gate(c, "tree");
    return await treePage(c, ctx, v);
  });
  for (
    const [path, api, parent] of [
      ["/admin/orgs", "/orgs", null],
      ["/admin/teams", "/teams", "org_id"],
      ["/admin/projects", "/projects", "team_id"],
    ] as const
  ) {
    app.post(path, async (c) => {
      const { ctx, v } = await gate(c, "tree");
      const form = await readForm(c);
      const r = await attempt(ctx, () =>
        call(c, form._csrf, "POST", api, {
          name: form.name ?? "",
          ...(parent ? { [parent]: form[parent] ?? "" } : {}),
        }));
      return await treePage(
        c,
        ctx,
        v,
        r.ok
          ? { kind: "ok", text: ctx.words.t("created", { name: String(r.value.name) }) }
          : r.notice,
      );
    });
  }

  limitsPages(app, deps, { gate: (c) => gate(c, "tree"), call });

  // ---- every key ----
  app.get("/admin/keys", async (c) => {
    const { ctx, v } = await gate(c, "keys");
    const keys = (await deps.keys.list()).filter((k) =>
      canRead(v.actor, "keys", placeOfKey(deps, k))
    ).sort((a, b) => b.createdAt - a.createdAt).map((k) => ({
      ...k,
      owner: k.userId
        ? t().people.get(k.userId)?.username ?? k.userId
        : t().projects.get(k.projectId ?? "")?.name ?? "",
      writable: canWrite(v.actor, "keys", placeOfKey(deps, k)),
    }));
    return await page(c, <AdminKeysPage ctx={ctx} viewer={v} keys={keys} />);
  });

  // ---- audit ----
  /** An audit row's target by name: a level or key by its name, an API path as it is. */
  const targetNames = async (ctx: PortalCtx) => {
    const keys = new Map((await deps.keys.list()).map((k) => [k.id, k.name]));
    const w = ctx.words;
    return (kind: string, id: string): string => {
      const tree = t();
      const named: Record<string, () => string | undefined> = {
        org: () => tree.orgs.get(id)?.name,
        team: () => tree.teams.get(id)?.name,
        project: () => tree.projects.get(id)?.name,
        person: () => tree.people.get(id)?.username,
        key: () => keys.get(id),
      };
      const found = named[kind]?.();
      if (found !== undefined) {
        const level = kind === "person" ? "level_person_named" : `level_${kind}`;
        return w.t(level as "level_org", { name: found });
      }
      return id.startsWith("/") ? id : `${kind} ${id}`;
    };
  };
  app.get("/admin/audit", async (c) => {
    const { ctx } = await gate(c, "audit");
    const actor = (c.req.query("actor") ?? "").trim();
    const target = (c.req.query("target") ?? "").trim();
    const q = new URLSearchParams({ limit: "200" });
    if (actor) q.set("actor", actor);
    if (target) q.set("target", target);
    const res = await call(c, undefined, "GET", `/audit?${q}`);
    const name = await targetNames(ctx);
    const rows = (res.data as StoredAuditRow[]).map((r) => ({
      id: r.id,
      at: r.at,
      actorName: r.actorName,
      action: r.action,
      target: name(r.targetKind, r.targetId),
      changes: changedFields(r.before, r.after),
    }));
    return await page(c, <AuditPage ctx={ctx} rows={rows} filter={{ actor, target }} />);
  });

  // ---- settings ----
  const settingsPage = async (
    c: Context<AppEnv>,
    ctx: PortalCtx,
    v: Viewer,
    notice?: Notice,
    ldapTrial?: DirectoryTrial,
  ) => {
    await deps.people.oidc.discover();
    await deps.people.directory.check();
    const prices = deps.people.prices;
    const listed = new Map(prices.list().map((x) => [x.model, x.price]));
    return await page(
      c,
      <SettingsPage
        ctx={ctx}
        viewer={v}
        oidc={deps.people.oidc.status()}
        ldap={deps.people.directory.status()}
        {...(ldapTrial ? { ldapTrial } : {})}
        signupOpen={deps.people.signupOpen}
        defaultPrice={prices.defaultPrice}
        prices={deps.catalog.list().map((m) => ({
          model: m.name,
          price: listed.get(m.name) ?? prices.priceOf(m.name),
        }))}
        canWrite={canWrite(v.actor, "staff", { orgId: null, teamId: null })}
        cluster={(await call(c, undefined, "GET", "/settings")).data as SettingView[]}
        {...(notice ? { notice } : {})}
      />,
      notice?.kind === "error" ? 400 : 200,
    );
  };
  app.get("/admin/settings", async (c) => {
    const { ctx, v } = await gate(c, "settings");
    return await settingsPage(c, ctx, v);
  });
  app.post("/admin/prices/:model", async (c) => {
    const { ctx, v } = await gate(c, "settings");
    const form = await readForm(c);
    // The form's prices are the currency per 1M tokens; one not written so is refused (-1).
    const micros = (k: string) => microsPer1kOf(form[k]?.trim() || "0") ?? -1;
    const r = await attempt(
      ctx,
      () =>
        call(c, form._csrf, "PUT", `/prices/${encodeURIComponent(c.req.param("model"))}`, {
          prompt_per_1k: micros("prompt"),
          completion_per_1k: micros("completion"),
          cached_per_1k: micros("cached"),
        }),
    );
    return await settingsPage(
      c,
      ctx,
      v,
      r.ok ? { kind: "ok", text: ctx.words.t("saved") } : r.notice,
    );
  });
  app.post("/admin/settings/ldap-test", async (c) => {
    const { ctx, v } = await gate(c, "settings");
    const form = await readForm(c);
    const r = await attempt(
      ctx,
      () =>
        call(
          c,
          form._csrf,
          "POST",
          "/auth/ldap/test",
          form.bind_password ? { bind_password: form.bind_password } : {},
        ),
    );
    if (!r.ok) return await settingsPage(c, ctx, v, r.notice);
    return await settingsPage(c, ctx, v, undefined, r.value as unknown as DirectoryTrial);
  });
  app.post("/admin/settings/cluster", async (c) => {
    const { ctx, v } = await gate(c, "settings");
    const form = await readForm(c);
    const key = form.key ?? "";
    const r = await attempt(ctx, async () => {
      const listed = (await call(c, undefined, "GET", "/settings")).data as SettingView[];
      return await call(c, form._csrf, "PUT", "/settings", {
        [key]: valueOf(form.value ?? "", listed.find((s) => s.key === key)),
      });
    });
    if (!r.ok) return await settingsPage(c, ctx, v, r.notice);
    const restart = (r.value.restart as string[] | undefined)?.length ?? 0;
    return await settingsPage(c, ctx, v, {
      kind: "ok",
      text: ctx.words.t(restart ? "setting_saved_restart" : "saved"),
    });
  });
}

/**
 * A form's text as the setting's value: a text setting takes it as typed; any other reads it as
 * JSON (a number, true/false, a list), falling back to the text so the API says what is wrong.
 */
function valueOf(text: string, setting: SettingView | undefined): unknown {
  if (!setting || typeof (setting.value ?? setting.default) === "string") return text;
  if (text === settingText(setting.value)) return setting.value;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
