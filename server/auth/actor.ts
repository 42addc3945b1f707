/**
 * Who is calling the admin API. Three credentials are accepted:
 * - an admin token (`llmgw_adm_…`): the administrator, as `ctl` uses it;
 * - a sign-in session (cookie `llmgw_session`): the person, with their role; every request that
 *   changes something must carry the CSRF token (`x-csrf-token` header or `_csrf` form field);
 * - a person's own API key: read-only, as a member (or viewer), so scripts can list their keys and
 *   usage. A key never changes anything here: a leaked key must not be able to mint more keys.
 * Service keys (no person) are refused.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import { keyPrefix, type KeyService } from "../keys/keys.ts";
import type { PeopleServices } from "../tenancy/services.ts";
import type { AdminTokens } from "./admin_tokens.ts";
import type { Actor } from "../tenancy/access.ts";
import type { Person } from "../tenancy/tenancy.ts";
import { adminTokenPrefix, bearerToken } from "./admin_tokens.ts";
import { csrfMatches, sessionCookie } from "./sessions.ts";

/** The client's address as the listener saw it (never a forwarded header, which anyone can send). */
export function clientAddr(c: Context<AppEnv>): string {
  return c.env?.remoteAddr?.hostname ?? "local";
}

export function personActor(kind: "session" | "key", id: string, p: Person): Actor {
  const asKey = kind === "key";
  return {
    kind,
    id,
    name: p.username,
    role: asKey ? (p.role === "viewer" ? "viewer" : "member") : p.role,
    personId: p.id,
    orgId: p.orgId,
    teamId: p.teamId,
    readOnly: asKey,
  };
}

/** What telling the caller needs: the three kinds of credential. */
export interface Authenticators {
  people: Pick<PeopleServices, "tenancy" | "sessions">;
  adminTokens: Pick<AdminTokens, "identify">;
  keys: Pick<KeyService, "check">;
}

export async function authenticate(deps: Authenticators, c: Context<AppEnv>): Promise<Actor> {
  const { tenancy, sessions } = deps.people;
  const bearer = bearerToken(c.req.raw);
  if (bearer?.startsWith(adminTokenPrefix)) {
    const token = await deps.adminTokens.identify(bearer);
    if (!token) throw new AppError("unauthorized");
    return {
      kind: "token",
      id: token.id,
      name: `admin token '${token.name}'`,
      role: "administrator",
      personId: null,
      orgId: null,
      teamId: null,
      readOnly: false,
    };
  }
  if (bearer?.startsWith(keyPrefix)) {
    const check = await deps.keys.check(bearer, clientAddr(c));
    const person = check.ok && check.key.userId ? tenancy.people.get(check.key.userId) : undefined;
    if (!check.ok || !person || person.state !== "active") throw new AppError("unauthorized");
    return personActor("key", check.key.id, person);
  }
  if (bearer) throw new AppError("unauthorized");
  const cookie = getCookie(c, sessionCookie);
  if (!cookie) throw new AppError("unauthorized");
  const session = await sessions.check(cookie);
  const person = session ? tenancy.people.get(session.userId) : undefined;
  if (!session || !person || person.state !== "active") throw new AppError("unauthorized");
  if (!["GET", "HEAD", "OPTIONS"].includes(c.req.method)) {
    const presented = c.req.header("x-csrf-token") ?? (await formCsrf(c));
    if (!csrfMatches(cookie, presented)) throw new AppError("csrf_failed");
  }
  return personActor("session", session.id, person);
}

async function formCsrf(c: Context<AppEnv>): Promise<string | undefined> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return undefined;
  const form = new URLSearchParams(await c.req.raw.clone().text());
  return form.get("_csrf") ?? undefined;
}
