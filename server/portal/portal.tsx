/**
 * The portal: server-rendered pages for people (sign-in, models, chat, keys, usage, profile) and,
 * in admin_pages.tsx, for operators and administrators. Every handler builds the viewer from the
 * session, checks role and tenant with server/tenancy/access.ts, and renders in the viewer's
 * language. Changes go through the admin API in-process (admin_call.ts) with the form's CSRF token.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import type { AppEnv } from "../app_env.ts";
import { clientAddr } from "../auth/actor.ts";
import { browserCookies } from "../auth/browser_cookies.ts";
import { deviceCookie, deviceCookieMaxAgeS } from "../auth/device_cookie.ts";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import { constantTimeEqual, randomToken } from "../auth/secrets.ts";
import { sessionCookie } from "../auth/sessions.ts";
import type { PortalDeps } from "./portal_deps.ts";
import { statusOf } from "../errors.ts";
import { AppError } from "../../core/errors.ts";
import { placeOfKey } from "../tenancy/place_of_key.ts";
import { canRead } from "../tenancy/access.ts";
import { adminCaller } from "./admin_call.ts";
import { adminPages } from "./admin_pages.tsx";
import { kbPages } from "./kb_pages.tsx";
import { mcpPages } from "./mcp_pages.tsx";
import { guardPages } from "./guard_pages.tsx";
import { errorText, portalChat, portalErrorResponse } from "./chat_route.ts";
import { checkCsrf, type PortalCtx, portalCtx, type Viewer } from "./context.ts";
import { isLocale, langCookie, validTimeZone } from "./i18n.ts";
import { modelRows } from "./model_rows.ts";
import { ChatPage } from "./pages/chat.tsx";
import { keyPages } from "./key_pages.tsx";
import { ModelsPage } from "./pages/models.tsx";
import { ProfilePage } from "./pages/profile.tsx";
import { ErrorPage, SignInPage } from "./pages/signin.tsx";
import { UsagePage } from "./pages/usage.tsx";
import { PrefsStore } from "./prefs.ts";
import { type Notice, page, readForm, signedIn } from "./render.ts";
import { loadStatic } from "./static_files.ts";
import { budgetLines, usageReport } from "./usage_report.ts";
import { csv } from "../csv.ts";
import { spendDecimal } from "../accounting/money.ts";

const loginCsrfCookie = "llmgw_csrf";

export interface PortalOptions {
  /** The public address when configured; else each request's own origin. */
  publicUrl: string;
}

export function portalRoutes(deps: PortalDeps, opts: PortalOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const prefs = new PrefsStore({ store: deps.store, clock: deps.clock });
  const call = adminCaller(deps);
  const statics = loadStatic();
  const load = (c: Context<AppEnv>) => portalCtx(deps, prefs, c, opts.publicUrl);
  const { secure, cookie } = browserCookies(() => deps.people.secureCookies);

  app.get("/static/:file", (c) => {
    const f = statics.get(c.req.param("file"));
    if (!f) throw new AppError("not_found", { path: c.req.path });
    c.header("content-type", f.type);
    c.header("cache-control", "no-cache");
    return c.body(f.body);
  });

  // ---- signing in and out ----
  const signInPage = (c: Context<AppEnv>, ctx: PortalCtx, error?: string, status = 200) => {
    let token = getCookie(c, loginCsrfCookie);
    if (!token) {
      token = randomToken("", 24);
      cookie(c, loginCsrfCookie, token, 3600);
    }
    const oidc = deps.people.oidc.status();
    const next = c.req.query("next");
    return page(
      c,
      <SignInPage
        ctx={ctx}
        loginCsrf={token}
        oidcName={oidc.configured ? oidc.label : null}
        {...(error ? { error } : {})}
        {...(next && next.startsWith("/") && !next.startsWith("//") ? { next } : {})}
      />,
      status as 200,
    );
  };

  app.get("/", async (c) => {
    const ctx = await load(c);
    if (ctx.viewer) return c.redirect("/models", 303);
    return await signInPage(c, ctx);
  });

  app.post("/login", async (c) => {
    const ctx = await load(c);
    const form = await c.req.parseBody();
    const field = (k: string) => (typeof form[k] === "string" ? form[k] as string : "");
    const want = getCookie(c, loginCsrfCookie);
    try {
      if (!want || !constantTimeEqual(want, field("_csrf"))) throw new AppError("csrf_failed");
      const { token, mark } = await deps.people.signIn.signIn(
        field("login"),
        field("password"),
        clientAddr(c),
        getCookie(c, deviceCookie),
      );
      cookie(c, sessionCookie, token, Math.floor(deps.people.sessionTtlMs / 1000));
      cookie(c, deviceCookie, mark, deviceCookieMaxAgeS);
      const next = field("next");
      return c.redirect(next.startsWith("/") && !next.startsWith("//") ? next : "/models", 303);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return await signInPage(c, ctx, errorText(ctx.words, e), statusOf(e.code).status);
    }
  });

  app.post("/logout", async (c) => {
    const token = getCookie(c, sessionCookie);
    if (token) {
      await readForm(c);
      await deps.people.sessions.revoke(token);
    }
    deleteCookie(c, sessionCookie, { path: "/", secure: secure(c) });
    return c.redirect("/", 303);
  });

  // ---- models and chat ----
  app.get("/models", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    return await page(c, <ModelsPage ctx={ctx} rows={modelRows(deps, v.person)} />);
  });

  app.get("/chat", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const pick = c.req.query("model");
    return await page(
      c,
      <ChatPage
        ctx={ctx}
        viewer={v}
        rows={modelRows(deps, v.person)}
        {...(pick ? { pick } : {})}
      />,
    );
  });

  app.post("/portal/chat", async (c) => {
    const ctx = await load(c);
    if (!ctx.viewer) {
      const e = new AppError("unauthorized");
      return portalErrorResponse(c, ctx.words, e);
    }
    try {
      // JSON only, so the token travels in the header (a cross-site form cannot set it).
      checkCsrf(c, c.req.header("x-csrf-token"));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return portalErrorResponse(c, ctx.words, e);
    }
    return await portalChat(deps, c, ctx.viewer.person, ctx.words);
  });

  app.get("/portal/model-state", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const row = modelRows(deps, v.person).find((r) => r.name === c.req.query("model"));
    if (!row) throw new AppError("model_not_found", { model: c.req.query("model") ?? "" });
    // The replicas' phase (fetching, checking) when the node reports one.
    const phase = deps.replicas.forModel(row.name)
      .map((r) => (r as unknown as { phase?: string }).phase).find(Boolean) ?? null;
    return c.json({ state: row.state, phase });
  });

  keyPages(app, deps, { load, call });

  // ---- usage ----
  const usageKeys = async (v: Viewer, scope: "mine" | "all") => {
    const all = await deps.keys.list();
    if (scope === "mine" || v.actor.role === "member") {
      return all.filter((k) => k.userId === v.person.id);
    }
    return all.filter((k) => canRead(v.actor, "usage", placeOfKey(deps, k)));
  };
  const scopeOf = (c: Context<AppEnv>) => (c.req.query("scope") === "all" ? "all" : "mine");

  app.get("/usage", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const canWiden = v.actor.role !== "member";
    const scope = canWiden ? scopeOf(c) : "mine";
    const readable = await usageKeys(v, scope);
    // Narrowed to one key or one project among those the viewer may read.
    const filter = { key: c.req.query("key") ?? "", project: c.req.query("project") ?? "" };
    const picked = readable.filter((k) =>
      (!filter.key || k.id === filter.key) && (!filter.project || k.projectId === filter.project)
    );
    const report = await usageReport(deps, picked, ctx.fmt.timeZone, ctx.now);
    const projects = [...new Set(readable.map((k) => k.projectId).filter((p) => p !== null))]
      .map((id) => ({ id, name: deps.people.tenancy.projects.get(id)?.name ?? id }));
    return await page(
      c,
      <UsagePage
        ctx={ctx}
        deps={deps}
        report={report}
        budgets={budgetLines(deps, v.person)}
        scope={scope}
        canWiden={canWiden}
        filter={filter}
        choices={{ keys: readable.map((k) => ({ id: k.id, name: k.name })), projects }}
      />,
    );
  });

  app.get("/usage.csv", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const scope = v.actor.role === "member" ? "mine" : scopeOf(c);
    const keys = await usageKeys(v, scope);
    const report = await usageReport(deps, keys, ctx.fmt.timeZone, ctx.now);
    const names = new Map(keys.map((k) => [k.id, k.name]));
    const body = csv([
      [
        "day",
        "model",
        "key_id",
        "key_name",
        "requests",
        "prompt_tokens",
        "completion_tokens",
        "cost_micros",
        // The same decimals ctl usage --format csv writes, in the cluster's currency.
        `cost_${deps.people.prices.currency}`,
      ],
      ...report.cells.map((x) => [
        new Date(x.day).toISOString().slice(0, 10),
        x.model,
        x.keyId,
        names.get(x.keyId) ?? "",
        x.requests,
        x.prompt,
        x.completion,
        x.micros,
        spendDecimal(x.micros),
      ]),
    ]);
    c.header("content-type", "text/csv; charset=utf-8");
    c.header("content-disposition", 'attachment; filename="llmgw-usage.csv"');
    c.header("cache-control", "no-store");
    return c.body(body);
  });

  // ---- profile ----
  const profilePage = async (c: Context<AppEnv>, ctx: PortalCtx, v: Viewer, notice?: Notice) =>
    await page(
      c,
      <ProfilePage
        ctx={ctx}
        viewer={v}
        oidcLabel={deps.people.oidc.status().label}
        {...(notice ? { notice } : {})}
      />,
      notice?.kind === "error" ? 400 : 200,
    );

  app.get("/profile", async (c) => {
    const ctx = await load(c);
    const changed = c.req.query("changed") === "1";
    return await profilePage(
      c,
      ctx,
      signedIn(ctx),
      changed ? { kind: "ok", text: ctx.words.t("password_changed") } : undefined,
    );
  });

  app.post("/profile", async (c) => {
    const ctx0 = await load(c);
    const v = signedIn(ctx0);
    const form = await readForm(c);
    const locale = isLocale(form.locale) ? form.locale : null;
    const zone = (form.time_zone ?? "").trim() || "UTC";
    if (!validTimeZone(zone)) {
      return await profilePage(c, ctx0, v, {
        kind: "error",
        text: ctx0.words.t("time_zone_invalid"),
      });
    }
    await prefs.set(v.person.id, { locale, timeZone: zone });
    // The cookie carries the choice to the sign-in page after signing out.
    if (locale) cookie(c, langCookie, locale, 365 * 86_400);
    else deleteCookie(c, langCookie, { path: "/" });
    const ctx = await load(c);
    return await profilePage(c, ctx, ctx.viewer ?? v, {
      kind: "ok",
      text: ctx.words.t("saved"),
    });
  });

  app.post("/profile/password", async (c) => {
    const ctx = await load(c);
    const v = signedIn(ctx);
    const form = await readForm(c);
    const t = deps.people.tenancy;
    const row = await t.credentials({ id: v.person.id });
    if (!row || v.person.signIn !== "local") throw new AppError("forbidden");
    if (!(await verifyPassword(form.current ?? "", row.passwordHash))) {
      return await profilePage(c, ctx, v, { kind: "error", text: ctx.words.t("password_wrong") });
    }
    const next = form.password ?? "";
    if (next.length < 12 || next.length > 200) {
      return await profilePage(c, ctx, v, { kind: "error", text: ctx.words.t("password_short") });
    }
    await t.updatePerson(v.person.id, { passwordHash: await hashPassword(next) });
    // Every other session ends with the old password; this one is replaced by a new one.
    await deps.people.sessions.revokeAllOf(v.person.id);
    const { token } = await deps.people.sessions.open(v.person.id);
    cookie(c, sessionCookie, token, Math.floor(deps.people.sessionTtlMs / 1000));
    await deps.people.audit.record(
      v.actor,
      "person.password_change",
      { kind: "person", id: v.person.id, orgId: v.person.orgId },
      { password: "old" },
      { password: "new" },
    );
    return c.redirect("/profile?changed=1", 303);
  });

  adminPages(app, deps, { load, call });
  kbPages(app, deps, { load, call });
  mcpPages(app, deps, { load, call });
  guardPages(app, deps, { load, call });

  // A browser asking for a page that is not there gets a page; API clients keep the JSON 404.
  app.get("*", async (c, next) => {
    if (!wantsPage(c)) return await next();
    throw new AppError("not_found", { path: c.req.path });
  });

  // A refusal on a page is a page, in the viewer's language; signed-out visitors go to sign-in.
  app.onError(async (err, c) => {
    if (!(err instanceof AppError)) throw err;
    const ctx = await load(c);
    if (err.code === "unauthorized" && c.req.method === "GET") {
      return c.redirect(`/?next=${encodeURIComponent(c.req.path)}`, 303);
    }
    const { status } = statusOf(err.code);
    const title = ctx.words.t(status === 404 ? "not_found_title" : "error_title");
    return await page(
      c,
      <ErrorPage ctx={ctx} title={title} message={errorText(ctx.words, err)} />,
      status as 400,
    );
  });
  return app;
}

const apiPaths = /^\/(v1|api|mcp|auth|mirror|metrics|health|ready|leader|rerank|scim)(\/|$)/;

/** A browser navigating (it asks for HTML first), not an API client, and not under an API path. */
function wantsPage(c: Context<AppEnv>): boolean {
  const accept = c.req.header("accept") ?? "";
  return accept.includes("text/html") && !apiPaths.test(c.req.path);
}
