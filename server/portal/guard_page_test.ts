/**
 * The portal's guardrails page: a tenant administrator sets a policy on their project through the
 * form (audited with before and after), tries it in the tester box, and cannot touch their own
 * organisation's level; a member does not get the page at all.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { makeTenant } from "../../tests/helpers/tenants.ts";
import { buildApp } from "../wiring/app.ts";

Deno.test("portal /admin/guard: set a level's policy from the form (audited before/after), try it, refused above one's level", async () => {
  const h = await startHarness();
  try {
    const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
    const a = await makeTenant(h, "acme");
    const browser = portalBrowser(app, "correct horse battery staple");
    const ada = await browser.signIn("ada@acme.example");
    const empty = await (await browser.get("/admin/guard", ada)).text();
    assert(empty.includes("No guardrail policies here yet."), empty);
    assert(empty.includes('href="/admin/guard"'), "in the admin navigation");

    const policy = (action: string) =>
      JSON.stringify({
        scope: { kind: "project", id: a.project.id },
        apply_to: "input",
        rules: [{ name: "mail", kind: "pii", action, types: ["email"] }],
      });
    const save = async (action: string) =>
      await browser.post("/admin/guard", ada, {
        _csrf: await browser.csrfOf("/admin/guard", ada),
        name: "app-pii",
        policy: policy(action),
      });
    const created = await save("flag");
    assertEquals(created.status, 200, await created.clone().text());
    assert((await created.text()).includes("Saved app-pii."));
    const replaced = await save("redact");
    assertEquals(replaced.status, 200);
    const rows = await h.people.audit.list({ target: "app-pii" });
    const change = rows.find((r) => r.action === "guard_policy.replace")!;
    assertEquals((change.before as { rules: { action: string }[] }).rules[0]!.action, "flag");
    assertEquals((change.after as { rules: { action: string }[] }).rules[0]!.action, "redact");

    const tried = await browser.post("/admin/guard/test", ada, {
      _csrf: await browser.csrfOf("/admin/guard", ada),
      name: "app-pii",
      direction: "input",
      text: "write to ana@example.com",
    });
    const shown = await tried.text();
    assertEquals(tried.status, 200, shown);
    assert(shown.includes("write to [EMAIL_1]"), shown);

    // A tenant administrator does not loosen their own organisation's level.
    const above = await browser.post("/admin/guard", ada, {
      _csrf: await browser.csrfOf("/admin/guard", ada),
      name: "org-rules",
      policy: JSON.stringify({
        scope: { kind: "org", id: a.org.id },
        apply_to: "input",
        rules: [{ name: "mail", kind: "pii", action: "flag" }],
      }),
    });
    assertEquals(above.status, 400);
    assertEquals(h.deps.guardPolicies.get("org-rules"), undefined);

    const mel = await browser.signIn("mel@acme.example");
    assertEquals((await browser.get("/admin/guard", mel)).status, 404);
  } finally {
    await h.close();
  }
});
