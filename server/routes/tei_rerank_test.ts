/**
 * Reranking and embeddings on a text-embeddings-inference replica, through the real app: a fake
 * TEI on a loopback port answers its own `/rerank` (at its root, in its own words) and the
 * OpenAI `/v1/embeddings`, and checks the replica's key.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { addReplica, engineKey, fakeServer } from "../../tests/helpers/routing.ts";

function fakeTei() {
  const seen: { path: string; body: Record<string, unknown> }[] = [];
  const server = fakeServer(async (req) => {
    if (req.headers.get("authorization") !== `Bearer ${engineKey}`) {
      return Response.json({ error: "unauthorized", error_type: "unauthorized" }, { status: 401 });
    }
    const path = new URL(req.url).pathname;
    const body = await req.json() as Record<string, unknown>;
    seen.push({ path, body });
    if (path === "/rerank") {
      const texts = body.texts as string[];
      if (texts.length === 0) {
        return Response.json({ error: "`texts` cannot be empty", error_type: "Validation" }, {
          status: 422,
        });
      }
      // TEI's answer: best first, the text only when asked.
      return Response.json(
        texts.map((t, index) => ({
          index,
          score: t.includes(String(body.query)) ? 0.9 : 0.1 / (index + 1),
          ...(body.return_text ? { text: t } : {}),
        }))
          .sort((a, b) => b.score - a.score),
      );
    }
    if (path === "/v1/embeddings") {
      return Response.json({
        object: "list",
        model: body.model,
        data: [{ object: "embedding", index: 0, embedding: [0.6, 0.8] }],
        usage: { prompt_tokens: 2, total_tokens: 2 },
      });
    }
    return new Response("not found", { status: 404 });
  });
  return { ...server, seen };
}

Deno.test("a TEI reranker: the client's documents reach TEI's /rerank as texts, and the answer comes back as results", async () => {
  const h = await startHarness();
  const tei = fakeTei();
  try {
    await h.deps.catalog.upsert({ name: "bge-rerank", engine: "tei", source: "" });
    addReplica(h, "t1", tei.url, { model: "bge-rerank", apiKey: engineKey });
    for (const path of ["/v1/rerank", "/rerank"]) {
      const res = await h.app.request(path, {
        method: "POST",
        headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "bge-rerank",
          query: "paris",
          documents: ["berlin is big", { text: "paris is in france" }, "rome"],
          top_n: 2,
          return_documents: true,
        }),
      });
      assertEquals(res.status, 200, await res.clone().text());
      const answer = await res.json();
      assertEquals(answer.results, [
        { index: 1, relevance_score: 0.9, document: { text: "paris is in france" } },
        { index: 0, relevance_score: 0.1, document: { text: "berlin is big" } },
      ]);
    }
    const last = tei.seen.at(-1)!;
    assertEquals(last.path, "/rerank", "TEI's own route, at its root");
    assertEquals(last.body.texts, ["berlin is big", "paris is in france", "rome"]);
    assertEquals(last.body.return_text, true);
    // TEI's own refusal reaches the client with its status.
    const empty = await h.app.request("/v1/rerank", {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "bge-rerank", query: "q", documents: [] }),
    });
    assertEquals(empty.status, 422);
    const bad = await h.app.request("/v1/rerank", {
      method: "POST",
      headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "bge-rerank", query: "q", documents: [1, 2] }),
    });
    assertEquals(bad.status, 400);
  } finally {
    await tei.close();
    await h.close();
  }
});

Deno.test("a TEI embedding model is served through its OpenAI /v1/embeddings", async () => {
  const h = await startHarness();
  const tei = fakeTei();
  try {
    await h.deps.catalog.upsert({ name: "bge-small", engine: "tei", source: "" });
    addReplica(h, "t1", tei.url, { model: "bge-small", apiKey: engineKey });
    const res = await h.v1("/embeddings", {
      model: "bge-small",
      input: "hi",
      encoding_format: "float",
    });
    assertEquals(res.status, 200, await res.clone().text());
    assertEquals((await res.json()).data[0].embedding, [0.6, 0.8]);
    assert(tei.seen.some((s) => s.path === "/v1/embeddings"));
  } finally {
    await tei.close();
    await h.close();
  }
});
