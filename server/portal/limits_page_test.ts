/** The portal's limits page: money in the cluster's currency, and requests in flight per model. */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant } from "../../tests/helpers/tenants.ts";
import { buildApp } from "../wiring/app.ts";

const password = "correct horse battery staple";

Deno.test("portal limits: budgets name the currency; max_parallel is set from the form; the sign-in form marks the browser", async () => {
  const h = await startHarness();
  try {
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    const a = await makeTenant(h, "acme");
    const { get, post, csrfOf } = portalBrowser(app, password);

    // The portal's own sign-in form sets the device mark, as the JSON sign-in does.
    const first = await app.request("/");
    const csrfCookie = /llmgw_csrf=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")![1]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await first.text())![1]!;
    const signedIn = await app.request("/login", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: `llmgw_csrf=${csrfCookie}`,
      },
      body: new URLSearchParams({ _csrf: csrf, login: "ada@acme.example", password }),
    });
    assertEquals(signedIn.status, 303);
    const cookies = signedIn.headers.get("set-cookie") ?? "";
    assert(/llmgw_device=[^;]+/.test(cookies), cookies);
    const session = `llmgw_session=${/llmgw_session=([^;]+)/.exec(cookies)![1]}`;

    const path = `/admin/limits/project/${a.project.id}`;
    const page = await (await get(path, session)).text();
    assert(page.includes("Spend per day (USD)"), "the budget names its currency");
    assert(page.includes('name="max_parallel"'), "requests in flight per model can be set");
    const saved = await post(path, session, {
      _csrf: await csrfOf(path, session),
      max_parallel: "3",
    });
    assertEquals(saved.status, 200, await saved.text());
    assertEquals(h.people.limits.get({ kind: "project", id: a.project.id }).maxParallel, 3);
  } finally {
    await h.close();
  }
});
