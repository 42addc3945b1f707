/**
 * SCIM from a terminal to an identity provider: `ctl scim token create` against a running
 * appliance, the token used at its /scim/v2 over a real port, then revoked with ctl.
 */
import { assert, assertEquals, assertMatch } from "../assert.ts";
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { startAppliance } from "../helpers/appliance.ts";

async function ctl(args: string[]) {
  const { cmd, args: full } = selfCommand(["ctl", ...args]);
  const out = await new Deno.Command(cmd, { args: full, env: selfCommandEnv() }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test({
  name: "ctl scim token create makes a token that provisions at /scim/v2; revoke ends it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const app = await startAppliance();
    try {
      const base = ["--data", app.dataDir, "--url", app.url];
      const made = await ctl(["scim", "token", "create", "entra", ...base]);
      assertEquals(made.code, 0, made.stderr);
      const token = /(llmgw_scim_\S+)/.exec(made.stdout)?.[1];
      assert(token, made.stdout);
      const res = await fetch(`${app.url}/scim/v2/Users`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
        body: JSON.stringify({
          schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
          userName: "ada@contoso.example",
          active: true,
        }),
      });
      assertEquals(res.status, 201, await res.clone().text());
      assertEquals(res.headers.get("content-type"), "application/scim+json");
      assertEquals((await res.json()).userName, "ada@contoso.example");

      const listed = await ctl(["scim", "token", "list", ...base]);
      assertEquals(listed.code, 0, listed.stderr);
      assertMatch(listed.stdout, /entra/);
      assert(!listed.stdout.includes(token), "a token is shown once");
      const id = /^(\S{26})\s+entra/m.exec(listed.stdout)?.[1];
      assert(id, listed.stdout);
      const revoked = await ctl(["scim", "token", "revoke", id, ...base]);
      assertEquals(revoked.code, 0, revoked.stderr);
      const after = await fetch(`${app.url}/scim/v2/Users`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assertEquals(after.status, 401);
      assertEquals((await after.json()).schemas, ["urn:ietf:params:scim:api:messages:2.0:Error"]);
    } finally {
      assertEquals(await app.stop(), 0);
    }
  },
});
