/**
 * Defects of issue 25 seen through the front door: the limits page shows own, inherited and
 * in-force values naming their levels (and a key's tighter own value below); an unknown page is a
 * page for a browser and JSON for an API client; the models page shows the context /v1/models
 * reports.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant, ok } from "../../tests/helpers/tenants.ts";
import { buildApp } from "../wiring/app.ts";

const password = "correct horse battery staple";

/** The text of one row of the limits table (tags stripped, spaces folded). */
function limitRow(html: string, limit: string): string {
  const m = new RegExp(`<tr data-limit="${limit}">([\\s\\S]*?)</tr>`).exec(html);
  assert(m, `a row for ${limit}`);
  return m[1]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

Deno.test("portal limits: own, inherited and in force side by side, each naming its level; a key's own tighter value is listed", async () => {
  const h = await startHarness();
  try {
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    const a = await makeTenant(h, "acme");
    const root = { bearer: h.adminToken };
    await ok(h, root, "PATCH", `/api/v1/limits/org/${a.org.id}`, { rpm: 1000 });
    await ok(h, root, "PATCH", `/api/v1/limits/key/${a.member.keyId}`, { rpm: 60 });
    const { signIn, get, post, csrfOf } = portalBrowser(app, password);
    const session = await signIn("ada@acme.example");
    const path = `/admin/limits/project/${a.project.id}`;
    const saved = await post(path, session, { _csrf: await csrfOf(path, session), rpm: "600" });
    assertEquals(saved.status, 200);
    const html = await saved.text();
    assert(/<input[^>]*name="rpm"[^>]*value="600"/.test(html), "the project's own value");
    const rpm = limitRow(html, "rpm");
    assert(rpm.includes("1,000 from Organisation acme"), rpm);
    assert(rpm.includes("600 from Project app"), rpm);
    assert(limitRow(html, "tpm").includes("no limit"), limitRow(html, "tpm"));
    const below = /<ul id="limits-below">([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? "";
    assert(below.includes("Key mel&#39;s key: Requests per minute 60"), below);

    const tr = await (await get(path, session, "tr")).text();
    assert(limitRow(tr, "rpm").includes("1.000 kaynak: acme kuruluşu"), limitRow(tr, "rpm"));
  } finally {
    await h.close();
  }
});

Deno.test("portal: an unknown page is a page for a browser, JSON for an API client", async () => {
  const h = await startHarness();
  try {
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    const browser = await app.request("/no-such-page", {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8", "accept-language": "tr" },
    });
    assertEquals(browser.status, 404);
    assert((browser.headers.get("content-type") ?? "").startsWith("text/html"));
    const page = await browser.text();
    assert(page.includes('<html lang="tr"'), "in the browser's language");
    const client = await app.request("/no-such-page");
    assertEquals(client.status, 404);
    assertEquals((await client.json()).error.code, "not_found");
    const api = await app.request("/v1/no-such", { headers: { accept: "text/html" } });
    assert(api.status >= 400);
    assert((api.headers.get("content-type") ?? "").includes("json"), "API paths keep JSON");
  } finally {
    await h.close();
  }
});

Deno.test("portal: revoking a key asks first; the audit log names targets and shows what changed", async () => {
  const h = await startHarness();
  try {
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    const a = await makeTenant(h, "acme");
    const b = await makeTenant(h, "globex");
    const { signIn, get, post } = portalBrowser(app, password);
    const mel = await signIn("mel@acme.example");
    const keys = await (await get("/keys", mel)).text();
    assert(!keys.includes(`action="/keys/${a.member.keyId}/revoke"`), "no one-click revoke");
    assert(keys.includes(`href="/keys/${a.member.keyId}/revoke"`), "a link to the confirm step");
    const confirm = await get(`/keys/${a.member.keyId}/revoke`, mel);
    assertEquals(confirm.status, 200);
    const form = await confirm.text();
    assert(form.includes("Revoke the key mel&#39;s key?"), "the confirm step names the key");
    assertEquals((await get(`/keys/${b.member.keyId}/revoke`, mel)).status, 404, "not theirs");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form)![1]!;
    const done = await post(`/keys/${a.member.keyId}/revoke`, mel, { _csrf: csrf, back: "/keys" });
    assertEquals(done.status, 200);
    assert((await h.deps.keys.get(a.member.keyId))?.revokedAt, "revoked after the confirm");

    await ok(h, { bearer: h.adminToken }, "PATCH", `/api/v1/limits/project/${a.project.id}`, {
      rpm: 600,
    });
    const ada = await signIn("ada@acme.example");
    const audit = await (await get("/admin/audit", ada)).text();
    const text = audit.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    assert(text.includes("Project app"), "the target by name");
    assert(/rpm : (none|null) → 600/.test(text), text.slice(text.indexOf("Project app") - 300));
    assert(!text.includes(`project ${a.project.id}`), "not the raw id");
  } finally {
    await h.close();
  }
});
