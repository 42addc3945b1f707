/** Shared pieces of the portal's handlers: rendering, form reading, notices, refusals. */
import type { Context } from "hono";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import { errorText } from "./chat_route.ts";
import type { PortalCtx, Viewer } from "./context.ts";
import { checkCsrf } from "./context.ts";

export type Notice = { kind: "ok" | "error"; text: string };

/** A page as a full HTML document. */
export async function page(
  c: Context<AppEnv>,
  el: unknown,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 429 | 500 = 200,
): Promise<Response> {
  c.header("cache-control", "no-store");
  c.header("x-frame-options", "DENY");
  c.header("referrer-policy", "same-origin");
  return c.html(`<!doctype html>${String(await el)}`, status);
}

/** A fragment (live sections). */
export async function fragment(c: Context<AppEnv>, el: unknown): Promise<Response> {
  c.header("cache-control", "no-store");
  return c.html(String(await el));
}

/** Reads a form post and checks its CSRF token against the session. */
export async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") fields[k] = v;
  checkCsrf(c, fields._csrf);
  return fields;
}

/** Runs a change; an AppError becomes an error notice in the viewer's language. */
export async function attempt<T>(
  ctx: PortalCtx,
  fn: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; notice: Notice }> {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (e instanceof AppError && e.code !== "csrf_failed") {
      return { ok: false, notice: { kind: "error", text: errorText(ctx.words, e) } };
    }
    throw e;
  }
}

/** The viewer, or a refusal that sends a signed-out visitor to the sign-in page. */
export function signedIn(ctx: PortalCtx): Viewer {
  if (!ctx.viewer) throw new AppError("unauthorized");
  return ctx.viewer;
}

/** Admin pages the viewer may not open are not there, as in the API. */
export function notFound(path: string): AppError {
  return new AppError("not_found", { path });
}
