/** SCIM filters and PATCH paths, on RFC 7644's own examples and on what Entra ID and Okta send. */
import { assertEquals, assertThrows } from "../../tests/assert.ts";
import { matches, parseFilter } from "./scim_filter.ts";
import { applyPatch } from "./scim_patch.ts";

const ada = {
  userName: "bjensen",
  name: { familyName: "Jensen", givenName: "Barbara" },
  title: "Tour Guide",
  emails: [{ type: "work", value: "bjensen@example.com" }, { type: "home", value: "b@home.org" }],
  meta: { lastModified: "2011-05-13T04:42:34Z" },
  active: true,
};

Deno.test("SCIM filter: RFC 7644 §3.4.2.2's examples match as the RFC says", () => {
  const yes = [
    'userName eq "bjensen"',
    'name.familyName co "O\'Malley" or name.familyName co "ens"',
    'userName sw "J" or userName sw "b"',
    "title pr",
    'meta.lastModified gt "2011-05-13T04:42:34Y" or meta.lastModified ge "2011-05-13T04:42:34Z"',
    'title pr and userName sw "b"',
    'title pr and (emails co "example.com" or emails.value co "example.org")',
    'userType ne "Employee" and not (emails co "example.com")  or emails.value co "home.org"',
    'emails[type eq "work" and value co "@example.com"]',
    'urn:ietf:params:scim:schemas:core:2.0:User:userName eq "BJENSEN"',
    "active eq true",
  ];
  for (const f of yes) assertEquals(matches(ada, parseFilter(f)), true, f);
  const no = ['userName eq "other"', "nickName pr", 'emails[type eq "other"]', "active eq false"];
  for (const f of no) assertEquals(matches(ada, parseFilter(f)), false, f);
});

Deno.test("SCIM filter: malformed filters are refused with a reason", () => {
  for (const f of ["userName eq", 'userName zz "x"', '(userName eq "x"', "userName eq x", '"x"']) {
    assertThrows(() => parseFilter(f), Error, "not valid");
  }
});

Deno.test("SCIM PATCH: Entra ID's capitalised ops and Okta's no-path value", () => {
  const r: Record<string, unknown> = structuredClone(ada);
  applyPatch(r, {
    Operations: [
      { op: "Replace", path: 'emails[type eq "work"].value', value: "new@example.com" },
      { op: "Add", path: "name.givenName", value: "Babs" },
      { op: "Replace", path: "active", value: "False" },
    ],
  });
  assertEquals((r.emails as { value: string }[])[0]!.value, "new@example.com");
  assertEquals((r.name as { givenName: string }).givenName, "Babs");
  assertEquals(r.active, "False", "kept as sent; the User reader takes string booleans");
  applyPatch(r, {
    Operations: [{ op: "replace", value: { active: true, "name.familyName": "J" } }],
  });
  assertEquals([r.active, (r.name as { familyName: string }).familyName], [true, "J"]);
  // An email of a type the person lacks is made.
  applyPatch(r, {
    Operations: [{ op: "replace", path: 'emails[type eq "other"].value', value: "o@x" }],
  });
  assertEquals((r.emails as unknown[]).length, 3);
  assertThrows(() => applyPatch(r, { Operations: [{ op: "Move", path: "active" }] }));
});

Deno.test("SCIM PATCH: group members added once, removed by value or by filter", () => {
  const g: Record<string, unknown> = { displayName: "G", members: [{ value: "a" }] };
  applyPatch(g, {
    Operations: [{
      op: "Add",
      path: "members",
      value: [{ value: "a" }, { value: "b" }, { value: "c" }],
    }],
  });
  assertEquals((g.members as { value: string }[]).map((m) => m.value), ["a", "b", "c"]);
  applyPatch(g, { Operations: [{ op: "Remove", path: "members", value: [{ value: "a" }] }] });
  applyPatch(g, { Operations: [{ op: "remove", path: 'members[value eq "b"]' }] });
  assertEquals((g.members as { value: string }[]).map((m) => m.value), ["c"]);
  applyPatch(g, { Operations: [{ op: "Replace", path: "displayName", value: "H" }] });
  assertEquals(g.displayName, "H");
});
