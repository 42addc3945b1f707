/**
 * Sign-in for people: POST /auth/login, POST /auth/logout, GET /auth/me, the OIDC redirect pair,
 * and POST /auth/signup when it is open. Sessions live in an HttpOnly, SameSite=Lax cookie (Secure
 * behind https). A JSON login needs no CSRF token (a cross-site form cannot send JSON); a form
 * login must carry `_csrf` equal to the `llmgw_csrf` cookie that GET /auth/csrf set (double
 * submit). Changes made with a session need the session's CSRF token (see auth/actor.ts).
 */
import type { Context } from "hono";
import { Hono } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import { clientAddr } from "../auth/actor.ts";
import { browserCookies } from "../auth/browser_cookies.ts";
import { deviceCookie, deviceCookieMaxAgeS } from "../auth/device_cookie.ts";
import { hashPassword } from "../auth/passwords.ts";
import { constantTimeEqual, randomToken } from "../auth/secrets.ts";
import { csrfFor, csrfMatches, sessionCookie } from "../auth/sessions.ts";
import type { PeopleServices } from "../tenancy/services.ts";
import { AppError } from "../../core/errors.ts";
import { readJsonBody } from "../router/read_body.ts";
import { parse } from "./parse_input.ts";
import { adminUsername, forgetFirstPassword } from "../setup/first_password.ts";

const loginCsrfCookie = "llmgw_csrf";
const oidcStateCookie = "llmgw_oidc_state";
const login = z.object({ email: z.string().min(1).max(200), password: z.string().min(1).max(200) });
const signup = z.strictObject({
  email: z.email(),
  password: z.string().min(12).max(200),
  display_name: z.string().max(200).optional(),
});

export function authRoutes(deps: { people: PeopleServices }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const p = () => deps.people;
  const { secure, cookie } = browserCookies(() => p().secureCookies);

  const readForm = async (
    c: Context<AppEnv>,
  ): Promise<{ fields: Record<string, string>; isForm: boolean }> => {
    const type = c.req.header("content-type") ?? "";
    if (type.startsWith("application/x-www-form-urlencoded")) {
      return { fields: Object.fromEntries(new URLSearchParams(await c.req.text())), isForm: true };
    }
    // Only a real JSON request skips the CSRF token: a cross-site form can post text/plain that
    // happens to parse as JSON, but it cannot set this content type without a CORS preflight.
    if (!type.startsWith("application/json")) {
      throw new AppError("invalid_request", {
        detail: "send application/json, or a form (application/x-www-form-urlencoded) with _csrf",
      });
    }
    return {
      fields: (await readJsonBody(c.req.raw, 64 * 1024)) as Record<string, string>,
      isForm: false,
    };
  };

  const loginCsrf = (c: Context<AppEnv>, fields: Record<string, string>, isForm: boolean) => {
    if (!isForm) return;
    const want = getCookie(c, loginCsrfCookie);
    if (!want || !fields._csrf || !constantTimeEqual(want, fields._csrf)) {
      throw new AppError("csrf_failed");
    }
  };

  app.get("/csrf", (c) => {
    const token = randomToken("", 24);
    cookie(c, loginCsrfCookie, token, 3600);
    return c.json({ csrf: token });
  });

  app.post("/login", async (c) => {
    const { fields, isForm } = await readForm(c);
    loginCsrf(c, fields, isForm);
    const input = parse(login, fields);
    const { person, token, mark } = await p().signIn.signIn(
      input.email,
      input.password,
      clientAddr(c),
      getCookie(c, deviceCookie),
    );
    const firstPassword = p().firstPasswordFile;
    if (person.username === adminUsername && firstPassword) {
      await forgetFirstPassword(firstPassword);
    }
    cookie(c, sessionCookie, token, Math.floor(deps.people.sessionTtlMs / 1000));
    cookie(c, deviceCookie, mark, deviceCookieMaxAgeS);
    return c.json({ person, csrf: csrfFor(token) });
  });

  app.post("/logout", async (c) => {
    const token = getCookie(c, sessionCookie);
    if (token) {
      const { fields } = await readForm(c).catch(() => ({ fields: {} as Record<string, string> }));
      if (!csrfMatches(token, c.req.header("x-csrf-token") ?? fields._csrf)) {
        throw new AppError("csrf_failed");
      }
      await p().sessions.revoke(token);
    }
    deleteCookie(c, sessionCookie, { path: "/", secure: secure(c) });
    return c.json({ ok: true });
  });

  app.get("/me", async (c) => {
    const token = getCookie(c, sessionCookie);
    const session = token ? await p().sessions.check(token) : undefined;
    const person = session ? p().tenancy.people.get(session.userId) : undefined;
    if (!token || !person || person.state !== "active") throw new AppError("unauthorized");
    return c.json({ person, csrf: csrfFor(token) });
  });

  app.post("/signup", async (c) => {
    if (!p().signupOpen) throw new AppError("forbidden");
    const { fields, isForm } = await readForm(c);
    loginCsrf(c, fields, isForm);
    const input = parse(signup, isForm ? fields : fields);
    const person = await p().tenancy.createPerson({
      username: input.email,
      email: input.email,
      displayName: input.display_name ?? null,
      role: "member",
      orgId: null,
      teamId: null,
      passwordHash: await hashPassword(input.password),
    });
    await p().audit.record(
      {
        kind: "system",
        id: "signup",
        name: "sign-up",
        role: "member",
        personId: person.id,
        orgId: null,
        teamId: null,
        readOnly: false,
      },
      "person.signup",
      { kind: "person", id: person.id, orgId: null },
      null,
      person,
    );
    return c.json({ person }, 201);
  });

  app.get("/oidc/start", async (c) => {
    const { url, state } = await p().oidc.start();
    cookie(c, oidcStateCookie, state, 600);
    return c.redirect(url, 302);
  });

  app.get("/oidc/callback", async (c) => {
    const code = c.req.query("code");
    const state = c.req.query("state");
    if (!code || !state) {
      throw new AppError("invalid_request", { detail: "code and state are required" });
    }
    const person = await p().oidc.finish({
      code,
      state,
      boundState: getCookie(c, oidcStateCookie),
    });
    deleteCookie(c, oidcStateCookie, { path: "/" });
    const { token } = await p().sessions.open(person.id);
    cookie(c, sessionCookie, token, Math.floor(deps.people.sessionTtlMs / 1000));
    return c.redirect("/", 302);
  });
  return app;
}
