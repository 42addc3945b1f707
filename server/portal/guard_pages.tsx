/**
 * The guardrail policies page (/admin/guard). Every read, change and trial goes through the
 * admin API in-process with the viewer's session: it decides who may see or change a level's
 * policies, records each change in the audit trail with before and after, and runs the tester.
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import type { AdminCall } from "./admin_call.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { mayOpen } from "./page_access.ts";
import { GuardPage, type GuardRow, type TryResult } from "./pages/guard.tsx";
import type { PortalDeps } from "./portal_deps.ts";
import { levelName } from "./pages/usage.tsx";
import type { Scope } from "../tenancy/tenancy.ts";
import { attempt, notFound, type Notice, page, readForm, signedIn } from "./render.ts";

interface ShownPolicy {
  name: string;
  scope: Scope;
  apply_to: string;
  rules: unknown[];
  updated_at: number;
  [k: string]: unknown;
}

export function guardPages(
  app: Hono<AppEnv>,
  deps: PortalDeps,
  io: { load: (c: Context<AppEnv>) => Promise<PortalCtx>; call: AdminCall },
): void {
  const gate = async (c: Context<AppEnv>) => {
    const ctx = await io.load(c);
    const v = signedIn(ctx);
    if (!mayOpen(v.actor, "guard")) throw notFound(c.req.path);
    return { ctx, v };
  };

  const rows = async (c: Context<AppEnv>, ctx: PortalCtx): Promise<GuardRow[]> => {
    const listed = await io.call(c, undefined, "GET", "/guard/policies");
    return (listed.data as ShownPolicy[]).map((p) => {
      const { name, updated_at: _at, ...body } = p;
      return {
        name,
        level: p.scope.kind === "global"
          ? ctx.words.t("level_global")
          : p.scope.kind === "key"
          ? ctx.words.t("level_key", { name: p.scope.id })
          : levelName(deps, ctx.words, p.scope),
        applyTo: p.apply_to,
        rules: p.rules.length,
        json: JSON.stringify(body, null, 2),
      };
    });
  };

  const guardPage = async (
    c: Context<AppEnv>,
    ctx: PortalCtx,
    v: Viewer,
    extra: { notice?: Notice; tried?: TryResult; tryText?: string } = {},
  ) =>
    await page(
      c,
      <GuardPage ctx={ctx} viewer={v} rows={await rows(c, ctx)} {...extra} />,
      extra.notice?.kind === "error" ? 400 : 200,
    );

  app.get("/admin/guard", async (c) => {
    const { ctx, v } = await gate(c);
    return await guardPage(c, ctx, v);
  });

  app.post("/admin/guard", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const name = (form.name ?? "").trim();
    const r = await attempt(ctx, async () => {
      let body: unknown;
      try {
        body = JSON.parse(form.policy ?? "");
      } catch (e) {
        throw new AppError("invalid_request", { detail: (e as Error).message }, "policy");
      }
      return await io.call(
        c,
        form._csrf,
        "PUT",
        `/guard/policies/${encodeURIComponent(name)}`,
        body,
      );
    });
    const warnings = r.ok ? (r.value.warnings as string[] | undefined) ?? [] : [];
    const notice: Notice = r.ok
      ? { kind: "ok", text: [ctx.words.t("guard_saved", { name }), ...warnings].join(" ") }
      : r.notice;
    return await guardPage(c, ctx, v, { notice });
  });

  app.post("/admin/guard/:name/delete", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const name = c.req.param("name");
    const r = await attempt(
      ctx,
      async () =>
        await io.call(c, form._csrf, "DELETE", `/guard/policies/${encodeURIComponent(name)}`),
    );
    const notice: Notice = r.ok
      ? { kind: "ok", text: ctx.words.t("guard_deleted", { name }) }
      : r.notice;
    return await guardPage(c, ctx, v, { notice });
  });

  app.post("/admin/guard/test", async (c) => {
    const { ctx, v } = await gate(c);
    const form = await readForm(c);
    const name = form.name ?? "";
    const text = form.text ?? "";
    const r = await attempt(
      ctx,
      async () =>
        await io.call(c, form._csrf, "POST", `/guard/policies/${encodeURIComponent(name)}/test`, {
          text,
          direction: form.direction === "output" ? "output" : "input",
        }),
    );
    if (!r.ok) return await guardPage(c, ctx, v, { notice: r.notice, tryText: text });
    const x = r.value as {
      blocked: { rule: string } | null;
      text: string | null;
      verdicts: TryResult["verdicts"];
      latency_us: number;
    };
    const tried: TryResult = {
      policy: name,
      blocked: x.blocked?.rule ?? null,
      text: x.text,
      verdicts: x.verdicts,
      latencyUs: x.latency_us,
    };
    return await guardPage(c, ctx, v, { tried, tryText: text });
  });
}
