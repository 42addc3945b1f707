import { assert, assertEquals } from "../../../tests/assert.ts";
import { startHarness } from "../../../tests/helpers/harness.ts";
import { call, makeTenant, ok } from "../../../tests/helpers/tenants.ts";
import { adminRoutes } from "./mod.ts";

interface Row {
  at: number;
  actorKind: string;
  actorName: string;
  action: string;
  targetKind: string;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

Deno.test("the audit trail of a sequence of changes: who, what, target, before and after, no secrets", async () => {
  const h = await startHarness();
  const root = { bearer: h.adminToken };
  try {
    const a = await makeTenant(h, "acme");
    h.clock.advance(1000);
    const since = h.clock.now();
    await ok(h, root, "PATCH", `/api/v1/orgs/${a.org.id}`, { name: "acme-corp" });
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/project/${a.project.id}`, { rpm: 10 });
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/project/${a.project.id}`, { tpm: 900 });
    const made = await ok<{ id: string; key: string }>(h, a.admin.cred, "POST", "/api/v1/keys", {
      name: "ci",
      project_id: a.project.id,
      service: true,
    });
    await ok(h, a.admin.cred, "DELETE", `/api/v1/keys/${made.id}`);
    const reset = await ok<{ password: string }>(
      h,
      root,
      "POST",
      `/api/v1/people/${a.viewer.id}/password`,
      {},
    );

    const trail = (await ok<{ data: Row[] }>(h, root, "GET", `/api/v1/audit?since=${since}`)).data
      .reverse();
    assertEquals(trail.map((r) => r.action), [
      "org.update",
      "limits.update",
      "limits.update",
      "key.create",
      "key.revoke",
      "person.password_reset",
    ]);
    const [rename, rpm, tpm, create, revoke, pw] = trail as [Row, Row, Row, Row, Row, Row];
    assertEquals(rename.actorKind, "token");
    assertEquals(rename.actorName, "admin token 'test'");
    assertEquals(rename.before!.name, "acme");
    assertEquals(rename.after!.name, "acme-corp");
    assertEquals(rpm.actorKind, "session");
    assertEquals(rpm.actorName, "ada.acme");
    assertEquals([rpm.targetKind, rpm.targetId], ["project", a.project.id]);
    assertEquals([rpm.before!.rpm, rpm.after!.rpm], [null, 10]);
    assertEquals([tpm.before!.rpm, tpm.before!.tpm, tpm.after!.rpm, tpm.after!.tpm], [
      10,
      null,
      10,
      900,
    ]);
    assertEquals(create.before, null);
    assertEquals(create.after!.key, "<secret: key>");
    assertEquals([revoke.before!.revokedAt, revoke.after!.revokedAt], [null, h.clock.now()]);
    assertEquals(pw.after!.password, "<secret: password>");
    const text = JSON.stringify(trail);
    assert(!text.includes(made.key), "the key never reaches the trail");
    assert(!text.includes(reset.password), "the password never reaches the trail");
    assert(!/pbkdf2|scrypt/.test(text), "no hash reaches the trail");

    // Filters: by actor and by target.
    const byActor =
      (await ok<{ data: Row[] }>(h, root, "GET", `/api/v1/audit?since=${since}&actor=ada.acme`))
        .data;
    assertEquals(byActor.length, 4);
    const byTarget =
      (await ok<{ data: Row[] }>(h, root, "GET", `/api/v1/audit?target=${made.id}`)).data;
    assertEquals(byTarget.map((r) => r.action).sort(), ["key.create", "key.revoke"]);
    // The tenant administrator reads their organisation's trail; another tenant's reads none of it.
    const theirs =
      (await ok<{ data: Row[] }>(h, a.admin.cred, "GET", `/api/v1/audit?since=${since}`)).data;
    assertEquals(theirs.length, 6);
    const b = await makeTenant(h, "globex");
    const others =
      (await ok<{ data: Row[] }>(h, b.admin.cred, "GET", `/api/v1/audit?since=${since}`)).data;
    assert(others.every((r) => !JSON.stringify(r).includes(a.org.id)));
    // Nothing in it can be changed: there is no route that writes it.
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      assertEquals((await call(h, root, method, "/api/v1/audit", {})).status, 404, method);
    }
    const doc = await (await h.app.request("/api/v1/openapi.json")).json();
    assertEquals(Object.keys(doc.paths["/api/v1/audit"]), ["get"]);
  } finally {
    await h.close();
  }
});

Deno.test("every admin route is in the OpenAPI document served at /api/v1/openapi.json", async () => {
  const h = await startHarness();
  try {
    const res = await h.app.request("/api/v1/openapi.json");
    assertEquals(res.status, 200);
    const doc = await res.json();
    assertEquals(doc.openapi, "3.1.0");
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ms]) =>
        Object.keys(ms).map((m) => `${m.toUpperCase()} ${p}`)
      ),
    );
    const routes = adminRoutes(h.deps).routes
      .filter((r) => r.method !== "ALL" && r.path !== "/openapi.json")
      .map((r) => `${r.method} /api/v1${r.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`);
    assert(routes.length >= 25, `found ${routes.length} routes`);
    for (const r of routes) assert(documented.has(r), `${r} is not in the OpenAPI document`);
    assertEquals(documented.size, new Set(routes).size);
    // Request bodies come from the same zod schemas that parse them.
    const createKey = doc.paths["/api/v1/keys"].post.requestBody.content["application/json"].schema;
    assertEquals(createKey.required, ["name"]);
    assert("project_id" in createKey.properties);
  } finally {
    await h.close();
  }
});
