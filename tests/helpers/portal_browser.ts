/**
 * A browser on the portal, driven through `app.request`: signs in through the sign-in form (its
 * CSRF cookie and field, as a browser sends them) and answers the session cookie; each later
 * call names the cookie it sends, so one test can hold several sessions.
 */
import { assertEquals } from "../assert.ts";

interface RequestsApp {
  request(path: string, init?: RequestInit): Response | Promise<Response>;
}

const csrfField = /name="_csrf" value="([^"]+)"/;

export function portalBrowser(app: RequestsApp, password: string) {
  const signIn = async (login: string, pw = password, lang = "en") => {
    const first = await app.request("/", { headers: { "accept-language": lang } });
    const csrfCookie = /llmgw_csrf=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")![1]!;
    const csrf = csrfField.exec(await first.text())![1]!;
    const res = await app.request("/login", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: `llmgw_csrf=${csrfCookie}`,
      },
      body: new URLSearchParams({ _csrf: csrf, login, password: pw }),
    });
    assertEquals(res.status, 303, await res.clone().text());
    const session = /llmgw_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
    return `llmgw_session=${session}`;
  };
  const get = (path: string, cookie: string, lang = "en") =>
    app.request(path, { headers: { cookie, "accept-language": lang } });
  /** The CSRF token of the form on the page at `path`. */
  const csrfOf = async (path: string, cookie: string) =>
    csrfField.exec(await (await get(path, cookie)).text())![1]!;
  const post = (path: string, cookie: string, fields: Record<string, string>) =>
    app.request(path, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    });
  return { signIn, get, post, csrfOf };
}
