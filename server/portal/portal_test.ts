/**
 * The portal in-process, through the front door: sign-in by form, role and tenant checks on every
 * administration page, CSRF on changes, a key shown once, the chat stream through the session,
 * usage charts and CSV, Turkish from Accept-Language and from the profile.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { dialectTest } from "../../tests/helpers/stores.ts";
import type { Store } from "../../db/store.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant } from "../../tests/helpers/tenants.ts";
import { buildApp } from "../wiring/app.ts";

const password = "correct horse battery staple";

async function setup(dialect: Store["dialect"]) {
  const h = await startHarness({ dialect });
  const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
  const a = await makeTenant(h, "acme");
  const b = await makeTenant(h, "globex");
  const { signIn: browserSignIn, get, post, csrfOf: formCsrf } = portalBrowser(app, password);
  return { h, app, a, b, browserSignIn, get, post, formCsrf };
}

Deno.test("portal: sign-in, the models page, and every page sets <html lang>", async () => {
  const { h, app, browserSignIn, get } = await setup("sqlite");
  try {
    const signedOut = await app.request("/");
    const html = await signedOut.text();
    assert(html.startsWith('<!doctype html><html lang="en">'), html.slice(0, 80));
    assert(html.includes('action="/login"'));
    assertEquals((await app.request("/models")).status, 303, "signed out: sent to sign-in");

    const bad = await app.request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "login=x&password=y&_csrf=nope",
    });
    assertEquals(bad.status, 403, "a login form without the cookie's token is refused");

    const cookie = await browserSignIn("mel@acme.example");
    const models = await (await get("/models", cookie)).text();
    assert(models.includes(">demo</a>"), "the demo model is listed");
    assert(models.includes("Simulated:"), "and says it is simulated");
    assert(models.includes('class="desc"'), "its description is a row under it");
    for (const p of ["/models", "/chat", "/keys", "/usage", "/profile"]) {
      const res = await get(p, cookie, "tr-TR,tr;q=0.9");
      assertEquals(res.status, 200, p);
      const text = await res.text();
      assert(text.includes('<html lang="tr">'), `${p}: no profile language: Accept-Language`);
    }
  } finally {
    await h.close();
  }
});

Deno.test("portal: members cannot open admin pages; tenant admins see only their tenant", async () => {
  const { h, browserSignIn, get } = await setup("sqlite");
  try {
    const mel = await browserSignIn("mel@acme.example");
    for (
      const p of [
        "/admin/cluster",
        "/admin/models",
        "/admin/people",
        "/admin/tree",
        "/admin/keys",
        "/admin/audit",
        "/admin/settings",
      ]
    ) {
      assertEquals((await get(p, mel)).status, 404, `member: ${p}`);
    }
    const ada = await browserSignIn("ada@acme.example");
    const people = await (await get("/admin/people", ada)).text();
    assert(people.includes("mel.acme") && !people.includes("mel.globex"), "only acme's people");
    assertEquals((await get("/admin/cluster", ada)).status, 404, "cluster is staff only");
    const keys = await (await get("/admin/keys", ada)).text();
    assert(keys.includes("mel&#39;s key") || keys.includes("mel's key"));
    const usage = await (await get("/usage?scope=all", mel)).text();
    assert(!usage.includes("usage-scope"), "a member cannot widen the usage view");
  } finally {
    await h.close();
  }
});

Deno.test("portal: a key is shown once; forms need the CSRF token", async () => {
  const { h, a, browserSignIn, get, post, formCsrf } = await setup("sqlite");
  try {
    const mel = await browserSignIn("mel@acme.example");
    const refused = await post("/keys", mel, { name: "x", project_id: a.project.id });
    assertEquals(refused.status, 403, "no CSRF token, no key");
    const csrf = await formCsrf("/keys", mel);
    const made = await post("/keys", mel, {
      _csrf: csrf,
      name: "laptop",
      project_id: a.project.id,
      expires_days: "10",
    });
    const html = await made.text();
    assertEquals(made.status, 200, html);
    const key = /id="new-key" value="(sk-llmgw-[^"]+)"/.exec(html)?.[1];
    assert(key, "the new key is on the page that made it");
    assert(html.split(key).length > 3, "and filled into the snippets");
    const later = await (await get("/keys", mel)).text();
    assert(!later.includes(key), "never again");
    assert(later.includes("laptop"));
    // The key works with /v1.
    const res = await h.app.request("/v1/models", { headers: { authorization: `Bearer ${key}` } });
    assertEquals(res.status, 200);
    await res.body?.cancel();
  } finally {
    await h.close();
  }
});

dialectTest(
  "portal: chat streams through the session, usage shows it, CSV exports it",
  async (dialect) => {
    const { h, app, browserSignIn, get, formCsrf } = await setup(dialect);
    try {
      const mel = await browserSignIn("mel@acme.example");
      const csrf = await formCsrf("/keys", mel);
      const body = JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] });
      const noToken = await app.request("/portal/chat", {
        method: "POST",
        headers: { cookie: mel, "content-type": "application/json" },
        body,
      });
      assertEquals(noToken.status, 403);
      await noToken.body?.cancel();
      const res = await app.request("/portal/chat", {
        method: "POST",
        headers: { cookie: mel, "content-type": "application/json", "x-csrf-token": csrf },
        body,
      });
      assertEquals(res.status, 200);
      const text = await res.text();
      assert(text.includes('"completion_tokens"') && text.trimEnd().endsWith("data: [DONE]"));
      await h.usage.flush();
      const usage = await (await get("/usage", mel)).text();
      assert(/data-chart="requests"/.test(usage));
      assert(/data-value="1"/.test(usage), "one request on today's bar");
      assert(usage.includes("portal-chat"), "by key: the portal's own key");
      const csv = await (await get("/usage.csv", mel)).text();
      assert(csv.startsWith("day,model,key_id"), csv);
      assert(csv.includes(",demo,"), csv);
      // A system prompt, a temperature and a picture (a data: URL) go through; another URL does not.
      const picture = (url: string) =>
        app.request("/portal/chat", {
          method: "POST",
          headers: { cookie: mel, "content-type": "application/json", "x-csrf-token": csrf },
          body: JSON.stringify({
            model: "demo",
            temperature: 0.3,
            messages: [{ role: "system", content: "Be brief." }, {
              role: "user",
              content: [{ type: "text", text: "what is this?" }, {
                type: "image_url",
                image_url: { url },
              }],
            }],
          }),
        });
      const withPicture = await picture("data:image/png;base64,iVBORw0KGgo=");
      assertEquals(withPicture.status, 200, await withPicture.clone().text());
      await withPicture.body?.cancel();
      const elsewhere = await picture("https://example.com/x.png");
      assertEquals(elsewhere.status, 400);
      await elsewhere.body?.cancel();
      const unknown = await app.request("/portal/chat", {
        method: "POST",
        headers: {
          cookie: mel,
          "content-type": "application/json",
          "x-csrf-token": csrf,
          "accept-language": "tr",
        },
        body: JSON.stringify({ model: "nope", messages: [{ role: "user", content: "hi" }] }),
      });
      assertEquals(unknown.status, 404);
      const err = await unknown.json();
      assertEquals(err.error.code, "model_not_found");
      assert(
        /nope/.test(err.error.message) && !/does not exist/.test(err.error.message),
        "Turkish",
      );
    } finally {
      await h.close();
    }
  },
);

Deno.test("portal: Turkish from Accept-Language, then the profile wins; %93 in Turkish", async () => {
  const { h, browserSignIn, get, post, formCsrf } = await setup("sqlite");
  try {
    const signedOut = await (await get("/", "", "tr-TR,tr;q=0.9,en;q=0.5")).text();
    assert(signedOut.includes('<html lang="tr">') && signedOut.includes("Oturum aç"));
    const mel = await browserSignIn("mel@acme.example");
    const csrf = await formCsrf("/profile", mel);
    const saved = await post("/profile", mel, {
      _csrf: csrf,
      locale: "tr",
      time_zone: "Europe/Istanbul",
    });
    const text = await saved.text();
    assertEquals(saved.status, 200, text);
    assert(text.includes('<html lang="tr">') && text.includes("Kaydedildi."));
    const models = await (await get("/models", mel, "en")).text();
    assert(models.includes('<html lang="tr">'), "the profile beats Accept-Language");
    const bad = await post("/profile", mel, {
      _csrf: csrf,
      locale: "tr",
      time_zone: "Mars/Base",
    });
    assertEquals(bad.status, 400);
    assertEquals(new Intl.NumberFormat("tr", { style: "percent" }).format(0.93), "%93");
  } finally {
    await h.close();
  }
});

Deno.test("portal: an administrator adds a team and a member; the password is shown once", async () => {
  const { h, a, browserSignIn, get, post, formCsrf } = await setup("sqlite");
  try {
    const res0 = await h.deps.people.tenancy.createPerson({
      username: "root",
      email: "root@example.com",
      displayName: null,
      role: "administrator",
      orgId: null,
      teamId: null,
      passwordHash: await (await import("../auth/passwords.ts")).hashPassword(password),
    });
    assert(res0.id);
    const root = await browserSignIn("root@example.com");
    const csrf = await formCsrf("/admin/tree", root);
    const team = await post("/admin/teams", root, {
      _csrf: csrf,
      org_id: a.org.id,
      name: "blue",
    });
    assertEquals(team.status, 200);
    assert((await team.text()).includes("blue"));
    const blue = [...h.deps.people.tenancy.teams.values()].find((t) => t.name === "blue")!;
    const made = await post("/admin/people", root, {
      _csrf: csrf,
      username: "bob",
      email: "bob@acme.example",
      role: "member",
      place: `team:${blue.id}`,
    });
    const html = await made.text();
    assertEquals(made.status, 200, html);
    const pw = /id="new-password" value="([^"]+)"/.exec(html)?.[1];
    assert(pw, "the generated password is shown");
    assert(!(await (await get("/admin/people", root)).text()).includes(pw), "once");
    const bob = await browserSignIn("bob@acme.example", pw);
    assertEquals((await get("/admin/people", bob)).status, 404);
    const audit = await (await get("/admin/audit?actor=root", root)).text();
    assert(audit.includes("person.create") && audit.includes("team.create"));
  } finally {
    await h.close();
  }
});

dialectTest("portal: a local account changes its password; other sessions end", async (dialect) => {
  const { h, browserSignIn, get, post, formCsrf } = await setup(dialect);
  try {
    const first = await browserSignIn("mel@acme.example");
    const second = await browserSignIn("mel@acme.example");
    const csrf = await formCsrf("/profile", second);
    const wrong = await post("/profile/password", second, {
      _csrf: csrf,
      current: "not it",
      password: "a brand new password",
    });
    assertEquals(wrong.status, 400);
    assert((await wrong.text()).includes("The current password is not right."));
    const done = await post("/profile/password", second, {
      _csrf: csrf,
      current: password,
      password: "a brand new password",
    });
    assertEquals(done.status, 303);
    const fresh = /llmgw_session=([^;]+)/.exec(done.headers.get("set-cookie") ?? "")![1]!;
    assertEquals((await get("/profile", first)).status, 303, "the other session ended");
    const after = await (await get("/profile?changed=1", `llmgw_session=${fresh}`)).text();
    assert(after.includes("Your password was changed."));
    await browserSignIn("mel@acme.example", "a brand new password");
  } finally {
    await h.close();
  }
});
