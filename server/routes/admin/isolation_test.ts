/**
 * The tenant-isolation sweep: every admin route in the OpenAPI document is tried with each
 * credential of tenant B against tenant A's objects. Nothing of A may be read or changed. The
 * route list comes from the served document, so a new route joins the sweep (and fails it until
 * the sweep knows how to call it).
 */
import { assert, assertEquals } from "../../../tests/assert.ts";
import { startHarness } from "../../../tests/helpers/harness.ts";
import { call, type Cred, makeTenant, ok } from "../../../tests/helpers/tenants.ts";

Deno.test("no credential of one tenant reads or changes another tenant's anything", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    const b = await makeTenant(h, "globex");
    // A's member spends a little, so A has usage to leak.
    const spent = await h.v1("/chat/completions", {
      model: "demo",
      max_tokens: 4,
      messages: [{ role: "user", content: "hi" }],
    }, { headers: { authorization: `Bearer ${a.member.key}` } });
    assertEquals(spent.status, 200);
    await spent.text();
    await h.usage.flush();

    // A guardrail policy on A's project, for the sweep to try to read, change and remove.
    const policyOfA = {
      scope: { kind: "project", id: a.project.id },
      apply_to: "input",
      rules: [{ name: "r", kind: "literal", action: "block", literals: ["x"] }],
    };
    await ok(
      h,
      { bearer: h.adminToken },
      "PUT",
      "/api/v1/guard/policies/acme-rules",
      policyOfA,
      201,
    );
    // A knowledge base of A's project, for the sweep to try to read, fill and remove.
    const kbOfA = await ok<{ id: string }>(
      h,
      { bearer: h.adminToken },
      "POST",
      "/api/v1/kb/collections",
      {
        name: "acme-docs",
        project_id: a.project.id,
        embedding_model: "demo",
      },
    );
    const doc = await (await h.app.request("/api/v1/openapi.json")).json();
    const secretsOfA = [
      a.org.id,
      a.team.id,
      a.project.id,
      a.admin.id,
      a.member.id,
      a.viewer.id,
      a.member.keyId,
      kbOfA.id,
    ];
    const ids: Record<string, string> = {
      "/orgs/{id}": a.org.id,
      "/teams/{id}": a.team.id,
      "/projects/{id}": a.project.id,
      "/people/{id}": a.member.id,
      "/people/{id}/password": a.admin.id,
      "/people/{id}/sessions": a.admin.id,
      "/keys/{id}": a.member.keyId,
      "/prices/{model}": "demo",
      "/mcp/servers/{name}": "jira",
      // SCIM's tokens are the cluster's: no tenant credential may list, make or revoke one.
      "/scim/tokens/{id}": "any-token",
      // Nodes belong to the cluster, not to a tenant: no tenant credential may touch any.
      "/nodes/{id}": "any-node",
      "/nodes/{id}/cordon": "any-node",
      "/nodes/{id}/uncordon": "any-node",
      "/nodes/{id}/drain": "any-node",
      "/nodes/{id}/replicas": "any-node",
      "/nodes/{id}/replicas/{replicaId}": "any-node",
      // Models and replicas are the cluster's too.
      "/models/{name}/explain": "demo",
      "/models/{name}/context": "demo",
      "/models/{name}/gpus": "demo",
      "/models/{name}/resources": "demo",
      "/models/{name}/judge": "demo",
      "/models/{name}/stop": "demo",
      "/models/{name}/start": "demo",
      "/models/{name}/smoke": "demo",
      "/models/{name}/restart": "demo",
      "/models/{name}": "demo",
      "/models/{name}/replicas/{rid}/log": "demo",
      "/guard/policies/{name}": "acme-rules",
      "/guard/policies/{name}/test": "acme-rules",
      "/kb/collections/{id}": kbOfA.id,
      "/kb/collections/{id}/documents": kbOfA.id,
      "/kb/collections/{id}/documents/{doc}": kbOfA.id,
    };
    const limitTargets: [string, string][] = [
      ["org", a.org.id],
      ["team", a.team.id],
      ["project", a.project.id],
      ["person", a.member.id],
      ["key", a.member.keyId],
    ];
    const bodies: Record<string, unknown> = {
      "post /orgs": { name: "stolen" },
      "patch /orgs/{id}": { name: "stolen" },
      "post /teams": { org_id: a.org.id, name: "stolen" },
      "patch /teams/{id}": { name: "stolen" },
      "post /projects": { team_id: a.team.id, name: "stolen" },
      "patch /projects/{id}": { name: "stolen" },
      "post /people": {
        username: "mole",
        role: "tenant_admin",
        org_id: a.org.id,
        password: "x".repeat(16),
      },
      "patch /people/{id}": { role: "tenant_admin" },
      "post /people/{id}/password": { password: "y".repeat(16) },
      "post /keys": { name: "mole", project_id: a.project.id, person_id: a.member.id },
      "patch /limits/{kind}/{id}": { rpm: 100000 },
      "put /limits/{kind}/{id}": { rpm: 100000 },
      "put /prices/{model}": { prompt_per_1k: 0, completion_per_1k: 0 },
      "post /nodes/join-codes": {},
      "post /nodes/{id}/cordon": {},
      "post /nodes/{id}/uncordon": {},
      "post /nodes/{id}/drain": {},
      "post /nodes/{id}/replicas": { replicaId: "s1", model: "demo", engine: "sim" },
      "post /models/plan": { source: "/nonexistent.gguf" },
      "post /models/serve": { source: "/nonexistent.gguf" },
      "post /models": { name: "stolen", profiles: [{ engine: "sim" }] },
      "post /models/{name}/context": { max_output: 10 },
      "post /models/{name}/gpus": { gpus: 1 },
      "post /models/{name}/resources": { cores: 1 },
      "post /models/{name}/judge": { format: "llama-guard-3" },
      "post /guard/judges/check": { budget_ms: 20 },
      "post /models/{name}/stop": {},
      "post /models/{name}/start": {},
      "post /models/{name}/smoke": {},
      "post /models/{name}/restart": {},
      "post /weights/prune": {},
      "put /settings": { log_level: "debug" },
      "post /notify/test": {},
      "post /auth/ldap/test": {},
      "post /scim/tokens": { name: "stolen" },
      "post /backup": {},
      "post /mcp/servers": { name: "stolen", url: "http://127.0.0.1:9/mcp" },
      "put /mcp/servers/{name}": { url: "http://127.0.0.1:9/mcp" },
      "put /guard/policies/{name}": policyOfA,
      "post /guard/policies/{name}/test": { text: "x" },
      "post /kb/collections": { name: "stolen", project_id: a.project.id, embedding_model: "demo" },
      "post /kb/collections/{id}/documents": "stolen words",
    };
    const creds: [string, Cred][] = [
      ["tenant admin", b.admin.cred],
      ["member (session)", b.member.cred],
      ["member (API key)", { bearer: b.member.key }],
      ["viewer", b.viewer.cred],
    ];
    const auditBefore = (await ok<{ data: unknown[] }>(
      h,
      { bearer: h.adminToken },
      "GET",
      `/api/v1/audit?limit=5000`,
    )).data.length;

    let tried = 0;
    for (
      const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    ) {
      const route = path.replace(/^\/api\/v1/, "");
      if (route === "/me") continue; // about the caller only
      for (const method of Object.keys(methods)) {
        const targets: string[] = route === "/limits/{kind}/{id}"
          ? limitTargets.map(([k, id]) => `/limits/${k}/${id}`)
          : route.includes("{")
          ? [route.replace(/\{\w+\}/, () => {
            const id = ids[route];
            assert(id, `the sweep does not know how to fill ${route}: add it`);
            return id;
          })]
          : [route];
        const body = bodies[`${method} ${route}`];
        if (method !== "get" && method !== "delete") {
          assert(body !== undefined, `the sweep has no body for ${method} ${route}: add one`);
        }
        for (const target of targets) {
          for (const [who, cred] of creds) {
            const res = await call(h, cred, method.toUpperCase(), `/api/v1${target}`, body);
            const text = await res.text();
            tried++;
            const where = `${who}: ${method.toUpperCase()} ${target} → ${res.status} ${
              text.slice(0, 200)
            }`;
            if (method === "get" && !route.includes("{")) {
              // Lists answer, but with nothing of A in them (or refuse outright).
              assert([200, 403, 404].includes(res.status), where);
              for (const id of secretsOfA) assert(!text.includes(id), `${where} leaks ${id}`);
            } else {
              // Another tenant's things do not exist for the caller: 404, never a 403 that says
              // they do. Only making an organisation names nothing of A's: that is the
              // administrator's alone, so a 403.
              const expected = method === "post" && route === "/orgs" ? 403 : 404;
              assertEquals(res.status, expected, where);
              // An error may echo the id the caller sent; it must not name anything else of A.
              const sent = target + JSON.stringify(body ?? "");
              for (const id of secretsOfA.filter((x) => !sent.includes(x))) {
                assert(!text.includes(id), `${where} leaks ${id}`);
              }
            }
          }
        }
      }
    }
    assert(tried > 100, `the sweep tried ${tried} calls`);
    // Nothing changed: no audit row was written by any of those calls, and A's things are as they were.
    const auditAfter = (await ok<{ data: unknown[] }>(
      h,
      { bearer: h.adminToken },
      "GET",
      `/api/v1/audit?limit=5000`,
    )).data.length;
    assertEquals(auditAfter, auditBefore);
    const org = await ok<{ name: string }>(h, a.admin.cred, "GET", `/api/v1/orgs/${a.org.id}`);
    assertEquals(org.name, "acme");
    const keyStill = await h.v1("/models", undefined, {
      headers: { authorization: `Bearer ${a.member.key}` },
    });
    assertEquals(keyStill.status, 200);

    // The sweep is not vacuous: A's own tenant administrator reads and changes A's things.
    await ok(h, a.admin.cred, "GET", `/api/v1/people/${a.member.id}`);
    await ok(h, a.admin.cred, "GET", `/api/v1/keys/${a.member.keyId}`);
    await ok(h, a.admin.cred, "PATCH", `/api/v1/limits/project/${a.project.id}`, { rpm: 10 });
    const usage = await ok<{ data: { keyId: string }[] }>(h, a.admin.cred, "GET", "/api/v1/usage");
    assert(usage.data.some((u) => u.keyId === a.member.keyId));
  } finally {
    await h.close();
  }
});

Deno.test("another tenant's ids given in a body answer 404, exactly as invented ones do", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    const b = await makeTenant(h, "globex");
    const invented = "01JZZZZZZZZZZZZZZZZZZZZZZZ";
    const person = { username: "mole", role: "member", password: "x".repeat(16) };
    // Each: a call by B's tenant administrator naming A's real object, then an invented one.
    const cases: [string, string, (id: string) => Record<string, unknown>][] = [
      ["POST", "/api/v1/people", (team) => ({ ...person, org_id: b.org.id, team_id: team })],
      ["POST", "/api/v1/people", (team) => ({ ...person, team_id: team })],
      ["POST", "/api/v1/people", (org) => ({ ...person, org_id: org })],
      ["PATCH", `/api/v1/people/${b.member.id}`, (team) => ({ team_id: team })],
      ["PATCH", `/api/v1/people/${b.member.id}`, (team) => ({ org_id: b.org.id, team_id: team })],
      ["POST", "/api/v1/teams", (org) => ({ org_id: org, name: "mole" })],
      ["POST", "/api/v1/projects", (team) => ({ team_id: team, name: "mole" })],
      ["POST", "/api/v1/keys", (project) => ({ name: "mole", project_id: project })],
      [
        "POST",
        "/api/v1/keys",
        (person) => ({ name: "mole", project_id: b.project.id, person_id: person }),
      ],
    ];
    const realOf = (body: (id: string) => Record<string, unknown>) => {
      const probe = JSON.stringify(body("ID"));
      if (probe.includes('"team_id":"ID"')) return a.team.id;
      if (probe.includes('"project_id":"ID"')) return a.project.id;
      if (probe.includes('"person_id":"ID"')) return a.member.id;
      return a.org.id;
    };
    for (const [method, path, body] of cases) {
      const real = await call(h, b.admin.cred, method, path, body(realOf(body)));
      const made = await call(h, b.admin.cred, method, path, body(invented));
      const where = `${method} ${path} ${JSON.stringify(body("ID"))}`;
      const [realText, madeText] = [await real.text(), await made.text()];
      assertEquals(real.status, 404, `${where} with A's id: ${real.status} ${realText}`);
      assertEquals(made.status, 404, `${where} with an invented id: ${made.status} ${madeText}`);
      assertEquals(JSON.parse(realText).error.code, JSON.parse(madeText).error.code, where);
    }
  } finally {
    await h.close();
  }
});

Deno.test("roles: members manage only their own keys, viewers change nothing, keys never write", async () => {
  const h = await startHarness();
  try {
    const a = await makeTenant(h, "acme");
    // A member cannot see another member's keys or people in their own org.
    const people = await ok<{ data: { id: string }[] }>(h, a.member.cred, "GET", "/api/v1/people");
    assertEquals(people.data.map((p) => p.id), [a.member.id]);
    const made = await call(h, a.member.cred, "POST", "/api/v1/people", {
      username: "x",
      role: "member",
      org_id: a.org.id,
    });
    assert([403, 404].includes(made.status), `a member adding a person: ${made.status}`);
    // A viewer reads the tenant but cannot change it.
    const seen = await ok<{ data: { id: string }[] }>(h, a.viewer.cred, "GET", "/api/v1/people");
    assertEquals(seen.data.length, 3);
    assertEquals(
      (await call(h, a.viewer.cred, "DELETE", `/api/v1/keys/${a.member.keyId}`)).status,
      403,
    );
    // A key on the admin API reads its owner's keys, and never changes anything.
    const mine = await ok<{ data: { id: string }[] }>(
      h,
      { bearer: a.member.key },
      "GET",
      "/api/v1/keys",
    );
    assertEquals(mine.data.map((k) => k.id), [a.member.keyId]);
    assertEquals(
      (await call(h, { bearer: a.member.key }, "POST", "/api/v1/keys", {
        name: "more",
        project_id: a.project.id,
      })).status,
      403,
    );
    // A tenant administrator cannot make a staff role or raise their own organisation's ceiling.
    assertEquals(
      (await call(h, a.admin.cred, "POST", "/api/v1/people", {
        username: "boss",
        role: "administrator",
        org_id: a.org.id,
        password: "z".repeat(16),
      })).status,
      403,
    );
    assertEquals(
      (await call(h, a.admin.cred, "PATCH", `/api/v1/limits/org/${a.org.id}`, { rpm: 1_000_000 }))
        .status,
      403,
    );
    // A session without the CSRF token changes nothing.
    const noCsrf = await h.app.request(`/api/v1/keys/${a.member.keyId}`, {
      method: "DELETE",
      headers: { cookie: (a.member.cred as { cookie: string }).cookie },
    });
    assertEquals(noCsrf.status, 403);
    assertEquals((await noCsrf.json()).error.code, "csrf_failed");
    // The member revokes their own key.
    await ok(h, a.member.cred, "DELETE", `/api/v1/keys/${a.member.keyId}`);
  } finally {
    await h.close();
  }
});
