/**
 * The leader's directory sync against a real OpenLDAP: disabled people suspended (sessions
 * ended) and reinstated on return, roles following groups, an administrator's own suspension
 * left alone, and the blast-radius guard refusing a sync that would suspend more than half.
 */
import { assert, assertEquals } from "../../../tests/assert.ts";
import { startHarness } from "../../../tests/helpers/harness.ts";
import { skipNote } from "../../../tests/helpers/skip.ts";
import { baseDn, slapdMissing, startSlapd } from "../../../tests/helpers/slapd.ts";
import { ldapConfig, login } from "../../../tests/helpers/directory_fixture.ts";

const people = [
  { uid: "ada", password: "ada-pw-Lovelace1" },
  { uid: "alan", password: "alan-pw-Turing1" },
  { uid: "grace", password: "grace-pw-Hopper1" },
  { uid: "edsger", password: "edsger-pw-Dijkstra1" },
  { uid: "barbara", password: "barbara-pw-Liskov1" },
];

const disable = (uid: string, on: boolean) =>
  `dn: uid=${uid},ou=people,${baseDn}\nchangetype: modify\n${
    on ? "add" : "delete"
  }: employeeType\n${on ? "employeeType: disabled\n" : ""}`;

Deno.test({
  name: `Directory sync: suspends and reinstates, roles follow groups, more than half is refused${
    skipNote(slapdMissing)
  }`,
  ignore: !!slapdMissing,
  fn: async () => {
    const d = await startSlapd({
      people,
      groups: [{ cn: "platform", members: ["ada"] }, {
        cn: "llm-admins",
        members: ["group:platform"],
      }],
    });
    const h = await startHarness({ ldap: ldapConfig(d) });
    try {
      const ids: Record<string, string> = {};
      const cookies: Record<string, string> = {};
      for (const p of people) {
        const res = await login(h, p.uid, p.password);
        assertEquals(res.status, 200, await res.clone().text());
        ids[p.uid] = (await res.json()).person.id;
        cookies[p.uid] = /llmgw_session=[^;]+/.exec(res.headers.get("set-cookie")!)![0];
      }
      assertEquals(h.people.tenancy.people.get(ids.ada!)!.role, "administrator");
      const me = (uid: string) =>
        Promise.resolve(h.app.request("/auth/me", { headers: { cookie: cookies[uid]! } })).then(
          (r: Response) => r.status,
        );

      // alan is disabled, barbara deleted, ada leaves the platform group; grace is suspended by
      // an administrator. Two of the four active accounts: not more than half.
      await d.modify(disable("alan", true));
      await d.modify(`dn: uid=barbara,ou=people,${baseDn}\nchangetype: delete\n`);
      await d.modify(
        `dn: cn=platform,ou=groups,${baseDn}\nchangetype: modify\nreplace: member\nmember: ou=groups,${baseDn}\n`,
      );
      const byAdmin = await h.admin("PATCH", `people/${ids.grace}`, { state: "suspended" });
      assertEquals(byAdmin.status, 200, await byAdmin.clone().text());
      const first = await h.people.directorySync.run();
      assertEquals([first.suspended, first.reinstated, first.refused], [2, 0, null]);
      assertEquals(h.people.tenancy.people.get(ids.alan!)!.state, "suspended");
      assertEquals(h.people.tenancy.people.get(ids.barbara!)!.state, "suspended");
      assert(h.people.tenancy.people.has(ids.barbara!), "suspended, never deleted");
      assertEquals(await me("alan"), 401, "a suspended person's session ends at once");
      assertEquals(h.people.tenancy.people.get(ids.ada!)!.role, "member");
      assertEquals(await me("edsger"), 200, "nobody else is signed out");
      assertEquals((await login(h, "alan", people[1]!.password)).status, 401);

      // Back in the directory: the directory's suspension is lifted, the administrator's is not.
      await d.modify(disable("alan", false));
      const second = await h.people.directorySync.run();
      assertEquals([second.suspended, second.reinstated], [0, 1]);
      assertEquals(h.people.tenancy.people.get(ids.alan!)!.state, "active");
      assertEquals(h.people.tenancy.people.get(ids.grace!)!.state, "suspended");
      assertEquals((await login(h, "alan", people[1]!.password)).status, 200);
      const trail = (await h.people.audit.list({ target: ids.alan! })).map((r) => r.action);
      assert(trail.includes("person.suspend") && trail.includes("person.reinstate"), trail.join());

      // All three active accounts gone at once looks like a broken directory: refused whole.
      for (const uid of ["ada", "alan", "edsger"]) await d.modify(disable(uid, true));
      const refused = await h.people.directorySync.run();
      assert(refused.refused?.includes("more than half"), String(refused.refused));
      assertEquals(refused.suspended, 0);
      for (const uid of ["ada", "alan", "edsger"]) {
        assertEquals(h.people.tenancy.people.get(ids[uid]!)!.state, "active", uid);
      }
      assert(h.deps.notifier.isOpen("directory_sync_refused", "ldap"), "a notification is raised");
      const status = await (await h.admin("GET", "sign-in")).json();
      assert(status.ldap.last_sync.refused.includes("more than half"));

      // One of three is not more than half: that sync applies and the notification ends.
      for (const uid of ["ada", "alan"]) await d.modify(disable(uid, false));
      const applied = await h.people.directorySync.run();
      assertEquals([applied.refused, applied.suspended], [null, 1]);
      assertEquals(h.people.tenancy.people.get(ids.edsger!)!.state, "suspended");
      assert(!h.deps.notifier.isOpen("directory_sync_refused", "ldap"));
    } finally {
      await h.close();
      await d.stop();
    }
  },
});
