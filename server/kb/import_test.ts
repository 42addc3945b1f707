/**
 * Imports at size and under strain: 1,000 passages timed (docs/knowledge-bases.md's figure), embedded in
 * batches of 32 through /v1/embeddings with progress readable meanwhile; a model with no replica
 * yet is waited out, not a failed document; a model that refuses outright fails it with its words.
 */
import { eq } from "drizzle-orm";
import { usage } from "../../db/schema.ts";
import { assert, assertEquals } from "../../tests/assert.ts";
import { makeCollection, settled, startKb } from "../../tests/helpers/kb.ts";
import { ok } from "../../tests/helpers/tenants.ts";

/** `n` passages of `words` distinct-ish words each, so none is a copy of another. */
function bigDocument(n: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const line = [`section${i}`];
    for (let w = 1; w < words; w++) line.push(`w${(i * 7919 + w * 104729) % 50021}`);
    out.push(line.join(" "));
  }
  return out.join("\n");
}

async function post(h: Parameters<typeof ok>[0], collection: string, name: string, text: string) {
  const res = await h.app.request(
    `/api/v1/kb/collections/${collection}/documents?name=${name}`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}` },
      body: new TextEncoder().encode(text),
    },
  );
  const body = await res.json();
  assertEquals(res.status, 202, JSON.stringify(body));
  return body as { id: string; passages: number };
}

Deno.test("kb: 1,000 passages are imported in batches of 32, with progress meanwhile (timed)", async () => {
  const { h, tenant, close } = await startKb();
  try {
    const col = await makeCollection(h, {
      name: "big",
      project_id: tenant.project.id,
      passage_words: 50,
      overlap_words: 0,
    });
    const text = bigDocument(1000, 50);
    const started = performance.now();
    const doc = await post(h, col.id, "big.txt", text);
    assertEquals(doc.passages, 1000);
    const seen: number[] = [];
    const path = `/api/v1/kb/collections/${col.id}`;
    for (;;) {
      const st = await ok<{ status: { embedded: number; importing: number } }>(
        h,
        { bearer: h.adminToken },
        "GET",
        path,
      );
      seen.push(st.status.embedded);
      if (st.status.importing === 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - started;
    const done = await settled(h, col.id, doc.id);
    assertEquals(done.status, "ready", JSON.stringify(done));
    assertEquals(done.embedded, 1000);
    assertEquals(seen.at(-1), 1000);
    assert(seen.every((n, i) => i === 0 || n >= seen[i - 1]!), "progress only grows");
    await h.usage.flush();
    const rows = await h.store.db.select().from(usage).where(eq(usage.model, "lex"));
    assertEquals(rows.length, Math.ceil(1000 / 32), "one /v1/embeddings request per 32 passages");
    assert(rows.every((r) => r.status === 200 && r.endpoint === "/embeddings"));
    console.log(
      `imported 1,000 passages (${(text.length / 1024).toFixed(0)} KiB) in ${ms.toFixed(0)} ms ` +
        `(${(1000 / (ms / 1000)).toFixed(0)} passages/s); progress seen: ${
          [...new Set(seen)].join(", ")
        }`,
    );
  } finally {
    await close();
  }
});

Deno.test("kb: an embedding model without a replica yet is waited out; one that refuses fails the document", async () => {
  const { h, tenant, lex, close } = await startKb();
  try {
    await h.deps.catalog.upsert({ name: "late", engine: "sim", source: "" });
    const col = await makeCollection(h, {
      name: "patient",
      project_id: tenant.project.id,
      embedding_model: "late",
    });
    const doc = await post(h, col.id, "a.txt", "words that wait for their model");
    await new Promise((r) => setTimeout(r, 300));
    const waiting = await ok(
      h,
      { bearer: h.adminToken },
      "GET",
      `/api/v1/kb/collections/${col.id}/documents/${doc.id}`,
    );
    assertEquals(waiting.status, "importing", "still waiting, not failed");
    h.deps.replicas.upsert({
      id: "r-late",
      model: "late",
      baseUrl: lex.url,
      apiKey: "lex-secret",
      state: "ready",
    });
    assertEquals((await settled(h, col.id, doc.id)).status, "ready");

    // An engine that refuses outright (here a 404: no such path) ends the import with its words.
    await h.deps.catalog.upsert({ name: "broken", engine: "sim", source: "" });
    h.deps.replicas.upsert({
      id: "r-broken",
      model: "broken",
      baseUrl: `${lex.url}/nothing-here`,
      apiKey: "lex-secret",
      state: "ready",
    });
    const bad = await makeCollection(h, {
      name: "doomed",
      project_id: tenant.project.id,
      embedding_model: "broken",
    });
    const failed = await settled(h, bad.id, (await post(h, bad.id, "b.txt", "some words")).id);
    assertEquals(failed.status, "failed");
    assert(String(failed.error).includes("broken answered 404"), String(failed.error));
    const st = await ok(h, { bearer: h.adminToken }, "GET", `/api/v1/kb/collections/${bad.id}`);
    assert(String(st.last_error).startsWith("b.txt: "), String(st.last_error));
  } finally {
    await close();
  }
});
