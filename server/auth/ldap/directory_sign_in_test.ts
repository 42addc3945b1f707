/**
 * Directory sign-in against a real OpenLDAP (tests/helpers/slapd.ts): StartTLS checked against a
 * test CA, the service account's search, people's own binds, nested groups mapped to a role and
 * a team, accounts bound to entryUUID, and a setting that cannot work turning only this sign-in
 * off. Through the front door: POST /auth/login and the admin API.
 */
import { assert, assertEquals } from "../../../tests/assert.ts";
import { type Harness, startHarness } from "../../../tests/helpers/harness.ts";
import { skipNote } from "../../../tests/helpers/skip.ts";
import { type Slapd, slapdMissing, startSlapd } from "../../../tests/helpers/slapd.ts";
import { ldapConfig, ldapValues, login } from "../../../tests/helpers/directory_fixture.ts";
import { buildLdapConfig, type LdapConfig } from "./ldap_config.ts";
import { verifyBind } from "./directory_client.ts";

const tree = {
  people: [
    { uid: "ada", password: "ada-pw-Lovelace1", mail: "ada@example.test", cn: "Ada Lovelace" },
    { uid: "alan", password: "alan-pw-Turing1", mail: "alan@example.test" },
    { uid: "grace", password: "grace-pw-Hopper1", mail: "grace@example.test" },
    { uid: "edsger", password: "edsger-pw-Dijkstra1" },
  ],
  groups: [
    // ada is an administrator through a nested group: llm-admins ∋ platform ∋ ada.
    { cn: "platform", members: ["ada"] },
    { cn: "llm-admins", members: ["group:platform"] },
    { cn: "research", members: ["alan", "grace"] },
  ],
};

async function withDirectory(
  config: (d: Slapd) => LdapConfig,
  body: (h: Harness, d: Slapd) => Promise<void>,
): Promise<void> {
  const d = await startSlapd(tree);
  const h = await startHarness({ ldap: config(d) });
  try {
    await body(h, d);
  } finally {
    await h.close();
    await d.stop();
  }
}

const ignore = !!slapdMissing;
const note = skipNote(slapdMissing);

Deno.test({
  name:
    `Directory: sign-in by uid or mail over StartTLS; nested groups give the role, a group the team${note}`,
  ignore,
  fn: () =>
    withDirectory((d) => ldapConfig(d), async (h) => {
      const ada = await login(h, "ada", tree.people[0]!.password);
      assertEquals(ada.status, 200, await ada.clone().text());
      const person = (await ada.json()).person;
      assertEquals(person.role, "administrator");
      assertEquals(person.signIn, "directory");
      assertEquals(person.email, "ada@example.test");
      assertEquals(person.displayName, "Ada Lovelace");
      const bound = await h.people.directoryAccounts.ofPerson(person.id);
      assert(bound, "bound to the directory");
      assert(/^[0-9a-f-]{36}$/.test(bound.externalId), `entryUUID, got ${bound.externalId}`);

      const grace = await login(h, "Grace@Example.Test", tree.people[2]!.password);
      assertEquals(grace.status, 200, await grace.clone().text());
      const g = (await grace.json()).person;
      assertEquals(g.role, "member");
      assertEquals(h.people.tenancy.teams.get(g.teamId)?.name, "Research");

      // The same person at the next sign-in, by the stable id: not a second account.
      assertEquals((await login(h, "ada@example.test", tree.people[0]!.password)).status, 200);
      assertEquals(
        [...h.people.tenancy.people.values()].filter((p) => p.username === "ada").length,
        1,
      );

      const status = await (await h.admin("GET", "sign-in")).json();
      assertEquals(status.ldap.ok, true, JSON.stringify(status.ldap));
      assertEquals(status.ldap.flavor, "openldap");
    }),
});

Deno.test({
  name:
    `Directory: wrong or empty passwords, filter syntax in the name, and unknown people are refused${note}`,
  ignore,
  fn: () =>
    withDirectory((d) => ldapConfig(d), async (h, d) => {
      assertEquals((await login(h, "ada", "not-her-password")).status, 401);
      // The form asks for a password; the directory code refuses an empty one on its own too.
      assertEquals((await login(h, "ada", "")).status, 400);
      assertEquals(await h.people.directory.authenticate("ada", ""), null);
      for (const name of ["*", "ada)(uid=*", "*)(|(uid=*", "a*"]) {
        assertEquals((await login(h, name, tree.people[0]!.password)).status, 401, name);
      }
      assertEquals((await login(h, "nobody", "whatever-pw")).status, 401);
      assertEquals(h.people.tenancy.people.size, 0, "nobody was signed in or made");
      // An empty password is refused before any connection: with the server gone, a real
      // password fails to connect, an empty one returns false at once.
      const config = h.people.directory.deps.config!;
      const dn = d.personDn("ada");
      assertEquals(await verifyBind(config, config.servers[0]!, dn, ""), false);
      await d.stop();
      let threw = false;
      try {
        await verifyBind(config, config.servers[0]!, dn, "x");
      } catch {
        threw = true;
      }
      assert(threw, "a real password does reach for the server");
    }),
});

Deno.test({
  name:
    `Directory: the gateway's throttle runs before the bind, so the form cannot lock out a real account${note}`,
  ignore,
  fn: () =>
    withDirectory((d) => ldapConfig(d), async (h) => {
      let asked = 0;
      const dir = h.people.directory;
      const real = dir.authenticate.bind(dir);
      dir.authenticate = (l, p) => (asked++, real(l, p));
      const codes: number[] = [];
      for (let i = 0; i < 14; i++) codes.push((await login(h, "alan", `guess-${i}`)).status);
      assertEquals(codes.filter((c) => c === 401).length, 10);
      assertEquals(codes.filter((c) => c === 429).length, 4);
      assertEquals(asked, 10, "the refused attempts never reached the directory");
    }),
});

Deno.test({
  name:
    `Directory: no account is made unless allowed; a local account with the name is not taken over${note}`,
  ignore,
  fn: () =>
    withDirectory((d) => ldapConfig(d, { ldapCreateAccounts: false }), async (h) => {
      assertEquals((await login(h, "ada", tree.people[0]!.password)).status, 401);
      assertEquals(h.people.tenancy.people.size, 0);
      const made = await h.admin("POST", "people", {
        username: "alan",
        role: "member",
        password: "alan-local-password-1",
      });
      assertEquals(made.status, 201, await made.clone().text());
      // The local password signs in; the directory's does not sign in as the local account.
      assertEquals((await login(h, "alan", "alan-local-password-1")).status, 200);
      assertEquals((await login(h, "alan", tree.people[1]!.password)).status, 401);
    }),
});

Deno.test({
  name:
    `Directory: servers are tried in turn; the test route reaches and binds each and counts people per group${note}`,
  ignore,
  fn: async () => {
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadUrl = `ldap://127.0.0.1:${(closed.addr as Deno.NetAddr).port}`;
    closed.close();
    await withDirectory(
      (d) => ldapConfig(d, { ldapUrls: `${deadUrl},${d.url}` }),
      async (h, d) => {
        assertEquals((await login(h, "alan", tree.people[1]!.password)).status, 200);
        const res = await h.admin("POST", "auth/ldap/test", {});
        assertEquals(res.status, 200);
        const trial = await res.json();
        assertEquals(trial.ok, false, "one server is down");
        assertEquals(trial.servers.map((s: { bound: boolean }) => s.bound), [false, true]);
        assertEquals(trial.people, 4);
        assertEquals(trial.groups, { "llm-admins": 1, research: 2 });

        const good = await (await h.admin("POST", "auth/ldap/test", { urls: d.url })).json();
        assertEquals(good.ok, true, JSON.stringify(good));
        assertEquals(good.servers[0].secured, true, "StartTLS before the bind");

        const badPassword = "wrong-service-password-Q9";
        const bad = await h.admin("POST", "auth/ldap/test", {
          urls: d.url,
          bind_password: badPassword,
        });
        const badText = await bad.text();
        assertEquals(bad.status, 200, badText);
        assertEquals(JSON.parse(badText).ok, false, badText);
        assertEquals(JSON.parse(badText).servers[0].bound, false);
        assert(JSON.parse(badText).error.includes("InvalidCredentials"), badText);
        assert(!badText.includes(badPassword), "the password is never echoed");

        // Plain LDAP only when allowed: allowed here, the test says the link is not secured.
        const plain = await (await h.admin("POST", "auth/ldap/test", {
          urls: d.url,
          allow_plain: true,
        })).json();
        assertEquals(plain.servers[0].secured, false);
      },
    );
  },
});

Deno.test({
  name:
    `Directory: a broken setting turns only directory sign-in off, with the reason; local accounts sign in${note}`,
  ignore,
  fn: async () => {
    const other = await startSlapd({ people: [], groups: [] });
    try {
      // A CA that did not sign the server's certificate: StartTLS must fail, not fall back.
      await withDirectory((d) => ldapConfig(d, { ldapCa: other.caPem }), async (h) => {
        const made = await h.admin("POST", "people", {
          username: "local-root",
          role: "administrator",
          password: "local-root-password-1",
        });
        assertEquals(made.status, 201);
        assertEquals((await login(h, "ada", tree.people[0]!.password)).status, 401);
        const status = await (await h.admin("GET", "sign-in")).json();
        assertEquals(status.local, true);
        assertEquals(status.ldap.configured, true);
        assertEquals(status.ldap.ok, false);
        assert(/certificate|self.signed|verify/i.test(status.ldap.reason), status.ldap.reason);
        assertEquals((await login(h, "local-root", "local-root-password-1")).status, 200);
      });
    } finally {
      await other.stop();
    }
    const missing = await startHarness({
      ldap: buildLdapConfig(
        { ...ldapValues({ url: "ldap://127.0.0.1:1", caPem: "" } as Slapd), ldapBaseDn: "" },
        { bindPassword: "", ca: "" },
      ),
    });
    try {
      const status = await (await missing.admin("GET", "sign-in")).json();
      assertEquals(status.ldap.ok, false);
      assert(status.ldap.reason.includes("auth.ldap.base_dn is not set"), status.ldap.reason);
      assert(status.ldap.reason.includes("password is empty"), status.ldap.reason);
    } finally {
      await missing.close();
    }
  },
});
