import { assert, assertEquals } from "../../tests/assert.ts";
import { silentLogger } from "../../core/log.ts";
import { startHarness } from "../../tests/helpers/harness.ts";
import { chat, fakeServer, usageRows } from "../../tests/helpers/routing.ts";
import { followExternalModels } from "./external.ts";

/** A provider that limits one key and answers the other, echoing the model it was asked for. */
function provider() {
  const seen: { key: string; model: string }[] = [];
  const server = fakeServer(async (req) => {
    const key = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    const body = await req.json();
    seen.push({ key, model: body.model });
    if (key === "sk-limited") {
      return Response.json({ error: { message: "rate limited", type: "rate_limit" } }, {
        status: 429,
      });
    }
    if (key !== "sk-good") return Response.json({ error: { message: "bad key" } }, { status: 401 });
    return Response.json({
      id: "x",
      object: "chat.completion",
      model: body.model,
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 10,
        completion_tokens: 2,
        prompt_tokens_details: { cached_tokens: 8 },
      },
    });
  });
  return { ...server, seen };
}

Deno.test("two outside keys, one answering 429: every request is answered by the other", async () => {
  const dir = await Deno.makeTempDir();
  const p = provider();
  const refused: string[] = [];
  const h = await startHarness({ onKeyRefused: (e) => refused.push(e) });
  try {
    await Deno.writeTextFile(`${dir}/limited.key`, "sk-limited\n");
    await Deno.writeTextFile(`${dir}/good.key`, "sk-good\n");
    await Deno.writeTextFile(`${dir}/revoked.key`, "sk-revoked\n");
    const external = await followExternalModels(h.deps.catalog, h.deps.replicas, silentLogger);
    await h.deps.catalog.upsert({
      name: "gpt",
      engine: "external",
      source: `${p.url}/v1`,
      upstreamModel: "gpt-4o-mini",
      externalKeys: [{ file: `${dir}/limited.key` }, { file: `${dir}/good.key`, weight: 1 }],
      pricePrompt: 1000,
      priceCached: 100,
      priceCompletion: 1000,
    });
    // Loading reads the key files in the background.
    await external.settled();
    assertEquals(h.deps.replicas.forModel("gpt").length, 2);
    for (let i = 0; i < 10; i++) {
      const res = await h.v1("/chat/completions", { ...chat("hi"), model: "gpt" });
      assertEquals(res.status, 200);
      assertEquals((await res.json()).model, "gpt-4o-mini");
    }
    // The limited key was tried once, then its breaker kept requests off it.
    assertEquals(p.seen.filter((s) => s.key === "sk-limited").length, 1);
    assertEquals(p.seen.filter((s) => s.key === "sk-good").length, 10);
    assert(p.seen.every((s) => s.model === "gpt-4o-mini"));
    assertEquals(h.deps.replicas.get("external:gpt#1")?.breaker.state(), "open");
    const rows = await usageRows(h);
    assertEquals(rows.length, 10);
    for (const r of rows) {
      assertEquals(r.replicaId, "external:gpt#2");
      assertEquals(r.cachedTokens, 8);
      // (2 × 1000 + 8 × 100) / 1000 → 3 (rounded up), + 2 × 1000 / 1000.
      assertEquals(r.costMicros, 5);
      assert(!JSON.stringify(r).includes("sk-"));
    }
    assertEquals(refused, []);

    // A refused key (401) also passes the request on, and names the endpoint, never the key.
    await h.deps.catalog.upsert({
      name: "gpt",
      engine: "external",
      source: `${p.url}/v1`,
      externalKeys: [{ file: `${dir}/revoked.key` }, { file: `${dir}/good.key` }],
    });
    await external.settled();
    for (let i = 0; i < 3; i++) {
      const res = await h.v1("/chat/completions", { ...chat("hi"), model: "gpt" });
      assertEquals(res.status, 200);
      await res.body?.cancel();
    }
    assertEquals(refused, ["external:gpt#1"]);

    // Outside providers are not held to our slots: many at once all go.
    const many = await Promise.all(
      Array.from({ length: 12 }, () => h.v1("/chat/completions", { ...chat("hi"), model: "gpt" })),
    );
    assert(many.every((r) => r.status === 200));
    await Promise.all(many.map((r) => r.body?.cancel()));
    assertEquals(h.deps.routing.admission.waiting("gpt"), 0);
  } finally {
    await p.close();
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("when every key is rate-limited the client gets a 429 of ours, never the provider's text", async () => {
  const dir = await Deno.makeTempDir();
  const p = provider();
  const h = await startHarness();
  try {
    await Deno.writeTextFile(`${dir}/limited.key`, "sk-limited");
    const external = await followExternalModels(h.deps.catalog, h.deps.replicas, silentLogger);
    await h.deps.catalog.upsert({
      name: "gpt",
      engine: "external",
      source: `${p.url}/v1`,
      externalKeys: [{ file: `${dir}/limited.key` }, { file: `${dir}/missing.key` }],
    });
    await external.settled();
    // The missing file is left out, not fatal.
    assertEquals(h.deps.replicas.forModel("gpt").length, 1);
    const res = await h.v1("/chat/completions", { ...chat("hi"), model: "gpt" });
    assertEquals(res.status, 429);
    assertEquals(res.headers.get("retry-after"), "1");
    const text = await res.text();
    assertEquals(JSON.parse(text).error.code, "provider_rate_limited");
    assert(!text.includes("sk-limited"));
    const again = await h.v1("/chat/completions", { ...chat("hi"), model: "gpt" });
    assertEquals(again.status, 503);
    assertEquals((await again.json()).error.code, "model_unavailable");
  } finally {
    await p.close();
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});
