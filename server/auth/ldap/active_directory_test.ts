/**
 * Directory sign-in against a real Active Directory (a Samba DC the test provisions): the root
 * DSE read as Active Directory, accounts bound to objectGUID, nested groups through
 * LDAP_MATCHING_RULE_IN_CHAIN, a disabled account (userAccountControl) refused at sign-in and
 * suspended by the sync.
 */
import { assert, assertEquals } from "../../../tests/assert.ts";
import { startHarness } from "../../../tests/helpers/harness.ts";
import { skipNote } from "../../../tests/helpers/skip.ts";
import { sambaMissing, startSambaDc, usersDn } from "../../../tests/helpers/samba_dc.ts";
import { login } from "../../../tests/helpers/directory_fixture.ts";
import { buildLdapConfig } from "./ldap_config.ts";

const people = [
  { name: "svc-llmgw", password: "Svc-Pass-123!" },
  { name: "ada", password: "Ada-Pass-123!", mail: "ada@corp.example" },
  { name: "grace", password: "Grace-Pass-123!" },
  { name: "edsger", password: "Edsger-Pass-123!" },
  { name: "alan", password: "Alan-Pass-123!", disabled: true },
];

Deno.test({
  name: `Active Directory (Samba DC): objectGUID, nested groups, disabled accounts${
    skipNote(sambaMissing)
  }`,
  ignore: !!sambaMissing,
  fn: async () => {
    const dc = await startSambaDc({
      people,
      groups: [
        { name: "platform", members: ["ada"] },
        { name: "llm-admins", members: ["platform"] },
      ],
    });
    const config = buildLdapConfig({
      ldapUrls: `${dc.ldapsUrl},${dc.ldapUrl}`,
      ldapCa: dc.caPem,
      ldapAllowPlain: false,
      ldapBindDn: "svc-llmgw@corp.example",
      ldapBaseDn: usersDn,
      ldapGroupBaseDn: usersDn,
      ldapUserFilter: "(&(objectClass=user)(objectCategory=person))",
      ldapLoginAttributes: "sAMAccountName,userPrincipalName,mail",
      ldapFlavor: "auto",
      ldapCreateAccounts: true,
      ldapSyncIntervalMs: 15 * 60_000,
      ldapTimeoutMs: 10_000,
      ldapLabel: "Corp AD",
      ldapRoles: { administrator: ["llm-admins"] },
      ldapMemberships: {},
    }, { bindPassword: "Svc-Pass-123!", ca: dc.caPem });
    const h = await startHarness({ ldap: config });
    try {
      const ada = await login(h, "ada", "Ada-Pass-123!");
      assertEquals(ada.status, 200, await ada.clone().text());
      const person = (await ada.json()).person;
      assertEquals(person.role, "administrator", "llm-admins ∋ platform ∋ ada");
      const bound = await h.people.directoryAccounts.ofPerson(person.id);
      assert(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(bound!.externalId),
      );
      const status = (await (await h.admin("GET", "sign-in")).json()).ldap;
      assertEquals(status.flavor, "active_directory");
      // By mail too; the disabled account never signs in, whatever its password.
      assertEquals((await login(h, "ada@corp.example", "Ada-Pass-123!")).status, 200);
      assertEquals((await login(h, "alan", "Alan-Pass-123!")).status, 401);
      for (const p of ["grace", "edsger"]) {
        assertEquals((await login(h, p, people.find((x) => x.name === p)!.password)).status, 200);
      }

      const trial = await (await h.admin("POST", "auth/ldap/test", {})).json();
      assertEquals(trial.ok, true, JSON.stringify(trial));
      assertEquals(trial.servers.map((s: { secured: boolean }) => s.secured), [true, true]);
      assertEquals(trial.groups, { "llm-admins": 1 });

      // Disabled in the directory: suspended at the next sync (1 of 3 is not more than half).
      await dc.modify(
        `dn: CN=grace,${usersDn}\nchangetype: modify\nreplace: userAccountControl\nuserAccountControl: 514\n`,
      );
      const report = await h.people.directorySync.run();
      assertEquals([report.refused, report.suspended], [null, 1]);
      const grace = [...h.people.tenancy.people.values()].find((p) => p.username === "grace")!;
      assertEquals(grace.state, "suspended");
    } finally {
      await h.close();
      await dc.stop();
    }
  },
});
