/**
 * The portal changes things through the admin API itself, in-process, with the person's session
 * and the form's CSRF token: one set of checks (role, tenant, validation, audit) for the portal
 * and `ctl`. A refusal comes back as the AppError the route threw, so the page can say it in the
 * person's language with the error's own parameters.
 */
import type { Context } from "hono";
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { AdminDeps } from "../routes/admin/mod.ts";
import { AppError } from "../../core/errors.ts";
import { adminRoutes } from "../routes/admin/mod.ts";

export type AdminCall = (
  c: Context<AppEnv>,
  csrf: string | undefined,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  /** JSON, or a file's bytes sent as they are (a knowledge base document). */
  body?: unknown,
) => Promise<Record<string, unknown>>;

export function adminCaller(deps: AdminDeps): AdminCall {
  const admin = new Hono<AppEnv>();
  admin.use("*", async (c, next) => {
    c.set("requestId", "portal");
    await next();
  });
  admin.route("/api/v1", adminRoutes(deps));
  // Rethrown so the caller gets the AppError itself (its code and parameters), not an envelope.
  admin.onError((err) => {
    throw err;
  });
  admin.notFound((c) => {
    throw new AppError("not_found", { path: c.req.path });
  });
  return async (c, csrf, method, path, body) => {
    const headers: Record<string, string> = { cookie: c.req.header("cookie") ?? "" };
    if (csrf) headers["x-csrf-token"] = csrf;
    const raw = body instanceof Uint8Array;
    if (body !== undefined) {
      headers["content-type"] = raw ? "application/octet-stream" : "application/json";
    }
    const res = await admin.request(`/api/v1${path}`, {
      method,
      headers,
      ...(body !== undefined
        ? { body: raw ? body as Uint8Array<ArrayBuffer> : JSON.stringify(body) }
        : {}),
    });
    return await res.json() as Record<string, unknown>;
  };
}
