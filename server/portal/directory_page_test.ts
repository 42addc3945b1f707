/**
 * The portal's settings page with a real directory (slapd): its state shown to staff, the test
 * run from the page, and a directory person signing in on the portal's own form.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { portalBrowser } from "../../tests/helpers/portal_browser.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { slapdMissing, startSlapd } from "../../tests/helpers/slapd.ts";
import { ldapConfig } from "../../tests/helpers/directory_fixture.ts";
import { buildApp } from "../wiring/app.ts";

const password = "correct horse battery staple";

Deno.test({
  name: `portal: the settings page shows the directory and runs its test${skipNote(slapdMissing)}`,
  ignore: !!slapdMissing,
  fn: async () => {
    const d = await startSlapd({
      people: [{ uid: "ada", password: "ada-pw-Lovelace1" }, {
        uid: "alan",
        password: "alan-pw-1x",
      }],
      groups: [{ cn: "llm-admins", members: ["ada"] }],
    });
    const h = await startHarness({ ldap: ldapConfig(d) });
    try {
      const app = buildApp({ ...h.deps, portal: { publicUrl: "" } });
      const made = await h.admin("POST", "people", {
        username: "root",
        role: "administrator",
        password,
      });
      assertEquals(made.status, 201);
      const browser = portalBrowser(app, password);
      const root = await browser.signIn("root");
      const page = await (await browser.get("/admin/settings", root)).text();
      assert(page.includes("Directory (LDAP / Active Directory)"), "the directory is listed");
      assert(/id="ldap-state">on \(Example directory\)/.test(page), "and on");
      assert(page.includes(d.url), "its server is named");
      const csrf = await browser.csrfOf("/admin/settings", root);
      const tested = await browser.post("/admin/settings/ldap-test", root, { _csrf: csrf });
      const result = await tested.text();
      assertEquals(tested.status, 200, result);
      assert(result.includes("Every server answered and bound."), result.slice(0, 2000));
      assert(result.includes("2 people may sign in"));
      assert(result.includes("llm-admins: 1"));
      const refused = await browser.post("/admin/settings/ldap-test", root, {});
      assertEquals(refused.status, 403, "the test needs the form's CSRF token");

      // A directory person signs in on the portal's form as on /auth/login.
      const ada = await browser.signIn("ada", "ada-pw-Lovelace1");
      assertEquals((await browser.get("/admin/settings", ada)).status, 200, "an administrator");
    } finally {
      await h.close();
      await d.stop();
    }
  },
});
