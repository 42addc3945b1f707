/** The portal's knowledge bases page: the list with status, an upload through the form, tenancy. */
import { assert, assertEquals } from "../../tests/assert.ts";
import { makeCollection, settled, startKb } from "../../tests/helpers/kb.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant, ok } from "../../tests/helpers/tenants.ts";
import { buildApp } from "../wiring/app.ts";

Deno.test("portal /admin/kb: a tenant admin sees their collections, uploads a file, sees it embedded", async () => {
  const { h, tenant, close } = await startKb();
  try {
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    await makeTenant(h, "globex");
    const col = await makeCollection(h, { name: "handbook", project_id: tenant.project.id });
    const browser = portalBrowser(app, "correct horse battery staple");
    const ada = await browser.signIn("ada@acme.example");
    const page = await (await browser.get("/admin/kb", ada)).text();
    assert(page.includes("handbook"), page);
    assert(page.includes('enctype="multipart/form-data"'), "an upload form where ada may add");
    const csrf = await browser.csrfOf("/admin/kb", ada);
    const form = new FormData();
    form.set("_csrf", csrf);
    form.set("file", new File(["# Leave\n\nAsk for leave two weeks ahead."], "leave.md"));
    const res = await app.request(`/admin/kb/${col.id}/documents`, {
      method: "POST",
      headers: { cookie: ada },
      body: form,
    });
    const text = await res.text();
    assertEquals(res.status, 200, text);
    assert(text.includes("leave.md is being imported."), text);
    const docs = (await ok<{ data: { id: string; name: string }[] }>(
      h,
      { bearer: h.adminToken },
      "GET",
      `/api/v1/kb/collections/${col.id}/documents`,
    )).data;
    assertEquals(docs.map((d) => d.name), ["leave.md"]);
    await settled(h, col.id, docs[0]!.id);
    const live = await (await browser.get("/admin/kb?part=live", ada)).text();
    assert(live.includes("1/1"), live);

    const gus = await browser.signIn("ada@globex.example");
    const other = await (await browser.get("/admin/kb", gus)).text();
    assertEquals(other.includes("handbook"), false, "another tenant does not see it");
    const mel = await browser.signIn("mel@acme.example");
    assertEquals((await browser.get("/admin/kb", mel)).status, 404, "members: not an admin page");
  } finally {
    await close();
  }
});
