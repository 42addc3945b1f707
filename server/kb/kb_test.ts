/**
 * Knowledge bases through the front door: a collection made on the admin API, documents added,
 * replaced and removed, searched with a client key; who sees which collection.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { addDocument, makeCollection, search, startKb } from "../../tests/helpers/kb.ts";
import { call, makeTenant, ok } from "../../tests/helpers/tenants.ts";

type Page = { data: { filename: string; passage_id: string; content: { text: string }[] }[] };

const cooking = `# Bread

Knead the dough for ten minutes, then let it rise until doubled.

# Soup

Simmer the lentils with cumin and garlic for forty minutes.`;

Deno.test("kb: a document is split, embedded and found; and the collection's status counts it", async () => {
  const { h, tenant, close } = await startKb();
  try {
    const col = await makeCollection(h, { name: "recipes", project_id: tenant.project.id });
    const doc = await addDocument(h, col.id, "cooking.md", cooking);
    assertEquals(doc.status, "ready", JSON.stringify(doc));
    assertEquals(doc.passages, 2);
    assertEquals(doc.embedded, 2);
    const status = await ok(h, { bearer: h.adminToken }, "GET", `/api/v1/kb/collections/${col.id}`);
    assertEquals(status.status, {
      documents: 1,
      passages: 2,
      embedded: 2,
      importing: 0,
      failed: 0,
    });
    assertEquals(status.embedding_model, "lex");
    assertEquals(status.dimensions, 1024);
    assertEquals(status.last_error, null);
    for (const mode of ["hybrid", "vector", "keyword"]) {
      const res = await search(h, tenant.member.key, "recipes", { query: "lentils cumin", mode });
      const page = await res.json() as Page;
      assertEquals(res.status, 200, JSON.stringify(page));
      assertEquals(page.data[0]?.content[0]?.text.includes("lentils"), true, mode);
    }
  } finally {
    await close();
  }
});

Deno.test("kb: re-adding a document replaces its passages; deleting it removes them", async () => {
  const { h, tenant, close } = await startKb();
  try {
    const col = await makeCollection(h, { name: "notes", project_id: tenant.project.id });
    await addDocument(h, col.id, "a.txt", "the zebra grazes near the river");
    const again = await addDocument(h, col.id, "a.txt", "the giraffe eats acacia leaves");
    const find = async (q: string) =>
      (await (await search(h, tenant.member.key, col.id, { query: q })).json() as Page).data;
    const texts = (await find("zebra")).map((p) => p.content[0]!.text);
    assertEquals(
      texts,
      ["the giraffe eats acacia leaves"],
      "the old passage is gone, from both halves",
    );
    assertEquals((await find("giraffe acacia"))[0]?.filename, "a.txt");
    const st = await ok(h, { bearer: h.adminToken }, "GET", `/api/v1/kb/collections/${col.id}`);
    assertEquals((st.status as { documents: number }).documents, 1);
    await ok(
      h,
      { bearer: h.adminToken },
      "DELETE",
      `/api/v1/kb/collections/${col.id}/documents/${again.id}`,
    );
    assertEquals((await find("giraffe acacia")).length, 0);
    const after = await ok(h, { bearer: h.adminToken }, "GET", `/api/v1/kb/collections/${col.id}`);
    assertEquals(after.status, { documents: 0, passages: 0, embedded: 0, importing: 0, failed: 0 });
  } finally {
    await close();
  }
});

Deno.test("kb: a project's collection is its keys'; an organisation's is all its projects'; others get 404", async () => {
  const { h, tenant, close } = await startKb();
  try {
    const other = await makeTenant(h, "globex");
    const mine = await makeCollection(h, { name: "handbook", project_id: tenant.project.id });
    const orgWide = await makeCollection(h, { name: "policies", org_id: tenant.org.id });
    await addDocument(h, mine.id, "h.txt", "expense reports are due on friday");
    await addDocument(h, orgWide.id, "p.txt", "expense limits are two hundred euros");
    // A second project of the same organisation sees the organisation's, not the first project's.
    const second = await ok<{ id: string }>(h, tenant.admin.cred, "POST", "/api/v1/projects", {
      team_id: tenant.team.id,
      name: "second",
    });
    const secondKey = await ok<{ key: string }>(h, tenant.member.cred, "POST", "/api/v1/keys", {
      name: "second key",
      project_id: second.id,
    });
    const status = async (key: string, ref: string) =>
      (await search(h, key, ref, { query: "expense" })).status;
    assertEquals(await status(tenant.member.key, mine.id), 200);
    assertEquals(await status(tenant.member.key, "handbook"), 200, "by name too");
    assertEquals(await status(tenant.member.key, orgWide.id), 200);
    assertEquals(await status(secondKey.key, orgWide.id), 200);
    assertEquals(await status(secondKey.key, mine.id), 404);
    assertEquals(await status(other.member.key, mine.id), 404);
    assertEquals(await status(other.member.key, orgWide.id), 404);
    assertEquals(await status(other.member.key, "policies"), 404);
    // On the admin API too: another tenant's administrator neither reads nor changes it.
    const path = `/api/v1/kb/collections/${mine.id}`;
    assertEquals((await call(h, other.admin.cred, "GET", path)).status, 404);
    assertEquals((await call(h, other.admin.cred, "DELETE", path)).status, 404);
    const listed = await ok<{ data: { id: string }[] }>(
      h,
      other.admin.cred,
      "GET",
      "/api/v1/kb/collections",
    );
    assertEquals(listed.data, []);
    const own = await ok<{ data: { id: string }[] }>(
      h,
      tenant.admin.cred,
      "GET",
      "/api/v1/kb/collections",
    );
    assertEquals(own.data.map((c) => c.id).sort(), [mine.id, orgWide.id].sort());
    assertEquals((await call(h, tenant.member.cred, "DELETE", path)).status, 403);
  } finally {
    await close();
  }
});

Deno.test("kb: a document that cannot be read is refused at once and names itself", async () => {
  const { h, tenant, close } = await startKb();
  try {
    const col = await makeCollection(h, { name: "bad", project_id: tenant.project.id });
    const res = await h.app.request(`/api/v1/kb/collections/${col.id}/documents?name=x.txt`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}` },
      body: new Uint8Array([0xff, 0xfe, 0x00, 0xc3]),
    });
    const body = await res.json();
    assertEquals(res.status, 400);
    assertEquals(body.error.code, "kb_import_failed");
    assert(String(body.error.message).includes("x.txt"));
  } finally {
    await close();
  }
});
