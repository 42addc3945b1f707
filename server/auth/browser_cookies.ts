/**
 * The cookies the portal and the sign-in API set in a browser: HTTP only, `SameSite=Lax`, and
 * `Secure` when the settings ask for it or the request came over https.
 */
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import type { AppEnv } from "../app_env.ts";

export function browserCookies(secureCookies: () => boolean) {
  const secure = (c: Context<AppEnv>) =>
    secureCookies() || new URL(c.req.url).protocol === "https:";
  const cookie = (c: Context<AppEnv>, name: string, value: string, maxAgeS: number) =>
    setCookie(c, name, value, {
      httpOnly: true,
      sameSite: "Lax",
      secure: secure(c),
      path: "/",
      maxAge: maxAgeS,
    });
  return { secure, cookie };
}
