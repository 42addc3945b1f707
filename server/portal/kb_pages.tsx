/**
 * The knowledge bases page (/admin/kb): the collections the viewer may read, and a document
 * added from a form. The upload goes through the admin API in-process, which checks the viewer
 * and records the audit, as every portal change does.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import { canRead, canWrite } from "../tenancy/access.ts";
import type { Place } from "../tenancy/tenancy.ts";
import type { AdminCall } from "./admin_call.ts";
import { checkCsrf, type PortalCtx, type Viewer } from "./context.ts";
import { type AdminPage, mayOpen } from "./page_access.ts";
import { KbPage, type KbRow, KbRows } from "./pages/kb.tsx";
import type { PortalDeps } from "./portal_deps.ts";
import { attempt, fragment, notFound, type Notice, page, signedIn } from "./render.ts";

export function kbPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { load: (c: Context<AppEnv>) => Promise<PortalCtx>; call: AdminCall },
): void {
  const t = () => deps.people.tenancy;
  const gate = async (c: Context<AppEnv>, what: AdminPage) => {
    const ctx = await io.load(c);
    const v = signedIn(ctx);
    if (!mayOpen(v.actor, what)) throw notFound(c.req.path);
    return { ctx, v };
  };

  const rows = async (v: Viewer): Promise<KbRow[]> => {
    const out: KbRow[] = [];
    for (const col of await deps.kb.kb.collections()) {
      const place: Place = col.projectId
        ? t().placeOfProject(col.projectId)
        : { orgId: col.orgId, teamId: null };
      if (!canRead(v.actor, "tree", place)) continue;
      const s = await deps.kb.kb.status(col.id);
      const org = t().orgs.get(col.orgId)?.name ?? col.orgId;
      out.push({
        id: col.id,
        name: col.name,
        place: col.projectId
          ? `${org} / ${t().projects.get(col.projectId)?.name ?? col.projectId}`
          : org,
        model: col.embeddingModel,
        documents: s.documents,
        passages: s.passages,
        embedded: s.embedded,
        importing: s.importing,
        lastError: col.lastError,
        writable: canWrite(v.actor, "tree", place),
      });
    }
    return out;
  };
  const kbPage = async (c: Context<AppEnv>, ctx: PortalCtx, v: Viewer, notice?: Notice) =>
    await page(c, <KbPage ctx={ctx} viewer={v} rows={await rows(v)} notice={notice} />);

  app.get("/admin/kb", async (c) => {
    const { ctx, v } = await gate(c, "kb");
    if (c.req.query("part") === "live") {
      return await fragment(c, <KbRows ctx={ctx} viewer={v} rows={await rows(v)} />);
    }
    return await kbPage(c, ctx, v);
  });

  app.post("/admin/kb/:id/documents", async (c) => {
    const { ctx, v } = await gate(c, "kb");
    const form = await c.req.parseBody();
    checkCsrf(c, typeof form._csrf === "string" ? form._csrf : undefined);
    const file = form.file;
    const r = await attempt(ctx, async () => {
      if (!(file instanceof File) || file.size === 0) {
        throw new AppError("invalid_request", {
          detail: ctx.words.t("kb_file"),
        });
      }
      const path = `/kb/collections/${encodeURIComponent(c.req.param("id"))}/documents?name=${
        encodeURIComponent(file.name)
      }`;
      return await io.call(
        c,
        form._csrf as string,
        "POST",
        path,
        new Uint8Array(await file.arrayBuffer()),
      );
    });
    const notice: Notice = r.ok
      ? { kind: "ok", text: ctx.words.t("kb_uploaded", { name: String(r.value.name ?? "") }) }
      : r.notice;
    return await kbPage(c, ctx, v, notice);
  });
}
