/**
 * Who is looking at a portal page, in which language and time zone. Built once per request from
 * the session cookie (read from the store each time, so a revoked session stops at once).
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../app_env.ts";
import { personActor } from "../auth/actor.ts";
import { csrfFor, csrfMatches, sessionCookie } from "../auth/sessions.ts";
import type { PortalDeps } from "./portal_deps.ts";
import { AppError } from "../../core/errors.ts";
import type { Actor } from "../tenancy/access.ts";
import type { Person } from "../tenancy/tenancy.ts";
import { chooseLocale, Fmt, langCookie, type Words, wordsFor } from "./i18n.ts";
import type { Prefs, PrefsStore } from "./prefs.ts";

export interface Viewer {
  person: Person;
  actor: Actor;
  /** The session's CSRF token, put in every form. */
  csrf: string;
  prefs: Prefs;
}

export interface PortalCtx {
  viewer: Viewer | undefined;
  words: Words;
  fmt: Fmt;
  now: number;
  /** This gateway's address as people reach it. */
  origin: string;
}

export async function portalCtx(
  deps: Pick<PortalDeps, "people" | "clock">,
  prefs: PrefsStore,
  c: Context<AppEnv>,
  publicUrl: string,
): Promise<PortalCtx> {
  const token = getCookie(c, sessionCookie);
  let viewer: Viewer | undefined;
  if (token) {
    const session = await deps.people.sessions.check(token);
    const person = session ? deps.people.tenancy.people.get(session.userId) : undefined;
    if (session && person && person.state === "active") {
      viewer = {
        person,
        actor: personActor("session", session.id, person),
        csrf: csrfFor(token),
        prefs: await prefs.get(person.id),
      };
    }
  }
  const locale = chooseLocale(
    viewer?.prefs.locale,
    getCookie(c, langCookie),
    c.req.header("accept-language"),
  );
  return {
    viewer,
    words: wordsFor(locale),
    fmt: new Fmt(locale, viewer?.prefs.timeZone ?? "UTC", deps.people.prices.currency),
    now: deps.clock.now(),
    origin: publicUrl || new URL(c.req.url).origin,
  };
}

/** Checks a form's `_csrf` (or the x-csrf-token header) against the session cookie. */
export function checkCsrf(c: Context<AppEnv>, presented: string | undefined): void {
  const token = getCookie(c, sessionCookie);
  if (!token || !csrfMatches(token, presented ?? c.req.header("x-csrf-token"))) {
    throw new AppError("csrf_failed");
  }
}
