/**
 * The portal's MCP pages: `/tools`, where a person sees the company servers and authorises
 * those that act with each person's own account (the OAuth redirect goes out and comes back
 * here), and `/admin/mcp`, where administrators and operators see the registrations and
 * administrators add, narrow and remove them through the admin API in-process. No page shows a
 * credential or where one is read from.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import { callbackPath } from "../mcp/person_auth.ts";
import { describeServer } from "../mcp/server_book.ts";
import { mayOpen } from "./page_access.ts";
import type { AdminCall } from "./admin_call.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { AdminMcpPage, type McpRow, ToolsPage } from "./pages/mcp.tsx";
import type { PortalDeps } from "./portal_deps.ts";
import { attempt, notFound, type Notice, page, readForm, signedIn } from "./render.ts";
import { errorText } from "./chat_route.ts";

export function mcpPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { load: (c: Context<AppEnv>) => Promise<PortalCtx>; call: AdminCall },
): void {
  const rows = async (): Promise<McpRow[]> => (await deps.mcp.servers.list()).map(describeServer);

  const toolsPage = async (c: Context<AppEnv>, ctx: PortalCtx, v: Viewer, notice?: Notice) => {
    const mine = await deps.mcp.people.connected(v.person.id);
    return await page(
      c,
      <ToolsPage
        ctx={ctx}
        rows={await rows()}
        connected={mine}
        {...(notice ? { notice } : {})}
      />,
    );
  };

  app.get("/tools", async (c) => {
    const ctx = await io.load(c);
    return await toolsPage(c, ctx, signedIn(ctx));
  });

  // The authorization server sends the person back here (any control plane will do: the
  // pending authorisation is in the sealed state).
  app.get(callbackPath, async (c) => {
    const ctx = await io.load(c);
    const v = signedIn(ctx);
    const { code, state, error } = c.req.query();
    const r = await attempt(ctx, async () => {
      if (error || !code || !state) {
        throw new AppError("invalid_request", {
          detail: `the authorisation was not given${error ? ` (${error.slice(0, 100)})` : ""}`,
        });
      }
      return await deps.mcp.people.finish(state, code, v.person.id);
    });
    const notice: Notice = r.ok
      ? { kind: "ok", text: ctx.words.t("mcp_authorized", { server: r.value }) }
      : r.notice;
    return await toolsPage(c, ctx, v, notice);
  });

  app.get("/connect/mcp/:name", async (c) => {
    const ctx = await io.load(c);
    if (!ctx.viewer) return c.redirect(`/?next=${encodeURIComponent(c.req.path)}`, 303);
    const name = c.req.param("name");
    try {
      const url = await deps.mcp.people.begin(name, ctx.viewer.person.id, ctx.origin);
      return c.redirect(url.href, 302);
    } catch (e) {
      if (!(e instanceof AppError) || e.code === "not_found") throw e;
      return await toolsPage(c, ctx, ctx.viewer, { kind: "error", text: errorText(ctx.words, e) });
    }
  });

  app.post("/tools/:name/forget", async (c) => {
    const ctx = await io.load(c);
    const v = signedIn(ctx);
    await readForm(c);
    await deps.mcp.people.forget(c.req.param("name"), v.person.id);
    return await toolsPage(c, ctx, v, {
      kind: "ok",
      text: ctx.words.t("mcp_forgotten", { server: c.req.param("name") }),
    });
  });

  // ---- administrators: the registrations ----
  const gate = async (c: Context<AppEnv>) => {
    const ctx = await io.load(c);
    const v = signedIn(ctx);
    if (!mayOpen(v.actor, "mcp")) throw notFound(c.req.path);
    return { ctx, v };
  };
  const adminPage = async (c: Context<AppEnv>, ctx: PortalCtx, v: Viewer, notice?: Notice) =>
    await page(
      c,
      <AdminMcpPage
        ctx={ctx}
        viewer={v}
        rows={await rows()}
        mayChange={v.actor.role === "administrator"}
        {...(notice ? { notice } : {})}
      />,
    );

  app.get("/admin/mcp", async (c) => {
    const { ctx, v } = await gate(c);
    return await adminPage(c, ctx, v);
  });

  app.post("/admin/mcp", async (c) => {
    const { ctx, v } = await gate(c);
    const f = await readForm(c);
    const name = (f.name ?? "").trim();
    const before = await deps.mcp.servers.get(name);
    // Replacing without a new file keeps the header files the page does not show (ctl's --header-file).
    const headers: Record<string, string> = { ...before?.headers };
    if (f.bearer_file?.trim()) headers.Authorization = f.bearer_file.trim();
    const tools = (f.tools ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    const body = {
      url: f.url ?? "",
      headers,
      rate: f.rate?.trim() ? Number(f.rate) : null,
      tools: tools.length > 0 ? tools : null,
      auth: f.auth === "oauth" ? "oauth" : "headers",
    };
    const r = await attempt(
      ctx,
      () =>
        before
          ? io.call(c, f._csrf, "PUT", `/mcp/servers/${encodeURIComponent(name)}`, body)
          : io.call(c, f._csrf, "POST", "/mcp/servers", { name, ...body }),
    );
    return await adminPage(
      c,
      ctx,
      v,
      r.ok ? { kind: "ok", text: ctx.words.t("mcp_saved", { server: name }) } : r.notice,
    );
  });

  // Narrowing alone: everything else of the registration (its header files, rate) is kept.
  app.post("/admin/mcp/:name/tools", async (c) => {
    const { ctx, v } = await gate(c);
    const f = await readForm(c);
    const name = c.req.param("name");
    const tools = (f.tools ?? "").split(",").map((t) => t.trim()).filter(Boolean);
    const r = await attempt(ctx, async () => {
      const before = await deps.mcp.servers.get(name);
      if (!before) throw new AppError("not_found", { path: c.req.path });
      return await io.call(c, f._csrf, "PUT", `/mcp/servers/${encodeURIComponent(name)}`, {
        url: before.url,
        headers: before.headers,
        rate: before.rate,
        tools: tools.length > 0 ? tools : null,
        auth: before.auth,
      });
    });
    return await adminPage(
      c,
      ctx,
      v,
      r.ok ? { kind: "ok", text: ctx.words.t("mcp_saved", { server: name }) } : r.notice,
    );
  });

  app.post("/admin/mcp/:name/remove", async (c) => {
    const { ctx, v } = await gate(c);
    const f = await readForm(c);
    const name = c.req.param("name");
    const r = await attempt(
      ctx,
      () => io.call(c, f._csrf, "DELETE", `/mcp/servers/${encodeURIComponent(name)}`),
    );
    return await adminPage(
      c,
      ctx,
      v,
      r.ok ? { kind: "ok", text: ctx.words.t("mcp_removed", { server: name }) } : r.notice,
    );
  });
}
