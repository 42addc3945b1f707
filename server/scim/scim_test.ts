/**
 * SCIM provisioning through the front door, with a client that sends what Entra ID's
 * provisioning service sends, in its order (match by filter, create, patch with capitalised ops
 * and string booleans, group membership changes, deprovision), and Okta's no-path PATCH.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { type Harness, startHarness } from "../../tests/helpers/harness.ts";
import { scimTokens } from "../../db/schema.ts";

const patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const userSchema = "urn:ietf:params:scim:schemas:core:2.0:User";
const groupSchema = "urn:ietf:params:scim:schemas:core:2.0:Group";
const errorSchema = "urn:ietf:params:scim:api:messages:2.0:Error";

function client(h: Harness, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await h.app.request(`/scim/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/scim+json",
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      body: text ? JSON.parse(text) : null,
    };
  };
}

async function scimToken(h: Harness): Promise<string> {
  const res = await h.admin("POST", "scim/tokens", { name: "entra" });
  assertEquals(res.status, 201, await res.clone().text());
  return (await res.json()).token;
}

const q = (filter: string) => encodeURIComponent(filter);

Deno.test("SCIM: Entra ID's sequence: match, create, patch, group membership, deactivate", async () => {
  const h = await startHarness({
    groupRules: {
      roles: { operator: ["gw-operators"] },
      memberships: { "Research": "team:Lab/Research" },
    },
  });
  try {
    const scim = client(h, await scimToken(h));
    // 1. Entra first looks the person up by the matching attribute.
    const none = await scim("GET", `/Users?filter=${q('userName eq "ada@contoso.example"')}`);
    assertEquals(none.status, 200);
    assertEquals(none.type, "application/scim+json");
    assertEquals([none.body.totalResults, none.body.Resources], [0, []]);

    // 2. Create, as Entra sends it.
    const made = await scim("POST", "/Users", {
      schemas: [userSchema, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "a1b2c3d4-0000-4000-8000-000000000001",
      userName: "ada@contoso.example",
      active: true,
      displayName: "Ada Lovelace",
      emails: [{ primary: true, type: "work", value: "ada@contoso.example" }],
      meta: { resourceType: "User" },
      name: { formatted: "Ada Lovelace", familyName: "Lovelace", givenName: "Ada" },
      roles: [],
    });
    assertEquals(made.status, 201, JSON.stringify(made.body));
    const id = made.body.id as string;
    assertEquals(made.body.externalId, "a1b2c3d4-0000-4000-8000-000000000001");
    const person = h.people.tenancy.people.get(id)!;
    assertEquals([person.username, person.email, person.signIn], [
      "ada@contoso.example",
      "ada@contoso.example",
      "oidc",
    ]);
    const again = await scim("POST", "/Users", {
      schemas: [userSchema],
      userName: "ADA@contoso.example",
    });
    assertEquals(again.status, 409);
    assertEquals(again.body.schemas, [errorSchema]);
    assertEquals([again.body.status, again.body.scimType], ["409", "uniqueness"]);

    // 3. Found again by externalId; 4. patched with Entra's capitalised ops.
    const found = await scim(
      "GET",
      `/Users?filter=${q('externalId eq "a1b2c3d4-0000-4000-8000-000000000001"')}`,
    );
    assertEquals(found.body.Resources.map((r: { id: string }) => r.id), [id]);
    const patched = await scim("PATCH", `/Users/${id}`, {
      schemas: [patchOp],
      Operations: [
        {
          op: "Replace",
          path: 'emails[type eq "work"].value',
          value: "ada.lovelace@contoso.example",
        },
        { op: "Replace", path: "displayName", value: "Ada King" },
      ],
    });
    assertEquals(patched.status, 200, JSON.stringify(patched.body));
    assertEquals(h.people.tenancy.people.get(id)!.email, "ada.lovelace@contoso.example");
    assertEquals(h.people.tenancy.people.get(id)!.displayName, "Ada King");

    // Groups: looked up without members, created empty, then members added and removed.
    const noGroup = await scim(
      "GET",
      `/Groups?excludedAttributes=members&filter=${q('displayName eq "Research"')}`,
    );
    assertEquals(noGroup.body.totalResults, 0);
    const group = await scim("POST", "/Groups", {
      schemas: [groupSchema],
      externalId: "9f8e7d6c-0000-4000-8000-00000000000a",
      displayName: "Research",
      members: [],
      meta: { resourceType: "Group" },
    });
    assertEquals(group.status, 201, JSON.stringify(group.body));
    const gid = group.body.id as string;
    const added = await scim("PATCH", `/Groups/${gid}`, {
      schemas: [patchOp],
      Operations: [{ op: "Add", path: "members", value: [{ value: id }] }],
    });
    assertEquals(added.status, 200, JSON.stringify(added.body));
    const placed = h.people.tenancy.people.get(id)!;
    assertEquals(h.people.tenancy.teams.get(placed.teamId!)?.name, "Research", "lands in the tree");
    const member = await scim(
      "GET",
      `/Groups?excludedAttributes=members&filter=${
        q(`id eq "${gid}" and members[value eq "${id}"]`)
      }`,
    );
    assertEquals(member.body.totalResults, 1);
    assertEquals(member.body.Resources[0].members, undefined, "members excluded");
    const removed = await scim("PATCH", `/Groups/${gid}`, {
      schemas: [patchOp],
      Operations: [{ op: "Remove", path: "members", value: [{ value: id }] }],
    });
    assertEquals(removed.status, 200);
    assertEquals(
      h.people.tenancy.people.get(id)!.teamId,
      null,
      "leaving the group leaves the team",
    );

    // Deactivate, as Entra sends it: a string boolean. Sessions end; the person stays.
    const { token: session } = await h.people.sessions.open(id);
    const off = await scim("PATCH", `/Users/${id}`, {
      schemas: [patchOp],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    assertEquals(off.status, 200, JSON.stringify(off.body));
    assertEquals(off.body.active, false);
    assertEquals(h.people.tenancy.people.get(id)!.state, "suspended");
    assertEquals(await h.people.sessions.check(session), undefined, "sessions ended");
    const on = await scim("PATCH", `/Users/${id}`, {
      schemas: [patchOp],
      Operations: [{ op: "Replace", path: "active", value: "True" }],
    });
    assertEquals(on.body.active, true);

    // Deleting a user suspends it: never deleted with its usage.
    assertEquals((await scim("DELETE", `/Users/${id}`)).status, 204);
    assertEquals(h.people.tenancy.people.get(id)?.state, "suspended");
    assertEquals((await scim("DELETE", `/Groups/${gid}`)).status, 204);
    assertEquals((await scim("GET", `/Groups/${gid}`)).status, 404);
    const trail = (await h.people.audit.list({ target: id })).map((r) => r.action);
    assert(trail.includes("person.create") && trail.includes("person.suspend"), trail.join());
  } finally {
    await h.close();
  }
});

Deno.test("SCIM: Okta's no-path PATCH, group roles, and what SCIM may not touch", async () => {
  const h = await startHarness({
    groupRules: { roles: { operator: ["gw-operators"] }, memberships: {} },
  });
  try {
    const scim = client(h, await scimToken(h));
    const made = await scim("POST", "/Users", {
      schemas: [userSchema],
      userName: "grace",
      name: { givenName: "Grace", familyName: "Hopper" },
      emails: [{ value: "grace@okta.example", primary: true }],
    });
    assertEquals(made.status, 201, JSON.stringify(made.body));
    assertEquals(made.body.displayName, "Grace Hopper");
    const id = made.body.id as string;
    const g = await scim("POST", "/Groups", {
      schemas: [groupSchema],
      displayName: "gw-operators",
      members: [{ value: id }],
    });
    assertEquals(g.status, 201);
    assertEquals(h.people.tenancy.people.get(id)!.role, "operator");
    const okta = await scim("PATCH", `/Groups/${g.body.id}`, {
      schemas: [patchOp],
      Operations: [{ op: "remove", path: `members[value eq "${id}"]` }],
    });
    assertEquals(okta.status, 200);
    assertEquals(h.people.tenancy.people.get(id)!.role, "member");
    const off = await scim("PATCH", `/Users/${id}`, {
      schemas: [patchOp],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    assertEquals(off.body.active, false);

    // A local account is not the provider's: invisible to SCIM, and not a member it may add.
    const local = await h.admin("POST", "people", {
      username: "root",
      role: "administrator",
      password: "root-local-password-1",
    });
    const rootId = (await local.json()).id;
    assertEquals((await scim("GET", `/Users/${rootId}`)).status, 404);
    assertEquals(
      (await scim("PATCH", `/Users/${rootId}`, {
        schemas: [patchOp],
        Operations: [{ op: "replace", path: "active", value: false }],
      })).status,
      404,
    );
    assertEquals(h.people.tenancy.people.get(rootId)!.state, "active");
    const sneak = await scim("POST", "/Groups", {
      schemas: [groupSchema],
      displayName: "sneaky",
      members: [{ value: rootId }],
    });
    assertEquals(sneak.status, 400);
    const list = await scim("GET", "/Users");
    assertEquals(list.body.Resources.map((r: { id: string }) => r.id), [id]);

    // Errors in SCIM's shape; a bad filter names itself.
    const bad = await scim("GET", `/Users?filter=${q("userName eq")}`);
    assertEquals([bad.status, bad.body.scimType, bad.body.schemas[0]], [
      400,
      "invalidFilter",
      errorSchema,
    ]);
  } finally {
    await h.close();
  }
});

Deno.test("SCIM: only a valid, unrevoked SCIM token opens /scim/v2; it is stored hashed", async () => {
  const h = await startHarness();
  try {
    const none = await h.app.request("/scim/v2/Users");
    assertEquals(none.status, 401);
    assertEquals((await none.json()).schemas, [errorSchema]);
    // The admin token is not a SCIM token.
    assertEquals((await client(h, h.adminToken)("GET", "/Users")).status, 401);
    const token = await scimToken(h);
    assert(token.startsWith("llmgw_scim_"));
    assertEquals((await client(h, token)("GET", "/ServiceProviderConfig")).status, 200);
    const listed = await (await h.admin("GET", "scim/tokens")).json();
    assertEquals(listed.data.length, 1);
    assert(!JSON.stringify(listed).includes(token), "never listed");
    const stored = JSON.stringify(await h.store.db.select().from(scimTokens));
    assert(!stored.includes(token), "only the hash is stored");
    const audit = JSON.stringify(await h.people.audit.list({}));
    assert(!audit.includes(token), "never in the audit trail");
    assertEquals((await h.admin("DELETE", `scim/tokens/${listed.data[0].id}`)).status, 200);
    assertEquals((await client(h, token)("GET", "/Users")).status, 401);
  } finally {
    await h.close();
  }
});
