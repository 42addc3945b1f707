/**
 * Knowledge base tests' setting: the harness with a second simulated engine serving `lex`, whose
 * embeddings are a hashed bag of words (texts sharing words are near), a tenant, and the calls
 * an operator makes: a collection, documents added, their imports waited for.
 */
import { type RunningSimEngine, startSimEngine } from "../../agent/sim_engine/serve.ts";
import { assertEquals } from "../assert.ts";
import { type Harness, type HarnessOptions, startHarness } from "./harness.ts";
import { makeTenant, ok, type Tenant } from "./tenants.ts";

export interface KbSetting {
  h: Harness;
  tenant: Tenant;
  lex: RunningSimEngine;
  close(): Promise<void>;
}

export async function startKb(opts: HarnessOptions & { slots?: number } = {}): Promise<KbSetting> {
  const dir = await Deno.makeTempDir({ prefix: "llmgw-kb-" });
  const h = await startHarness({ storePath: `${dir}/llmgw.db`, ...opts });
  const lex = await startSimEngine({
    model: "lex",
    embeddingMode: "lexical",
    embeddingDims: 1024,
    slots: opts.slots ?? 8,
    apiKey: "lex-secret",
  });
  await h.deps.catalog.upsert({ name: "lex", engine: "sim", source: "" });
  h.deps.replicas.upsert({
    id: "r-lex",
    model: "lex",
    baseUrl: lex.url,
    apiKey: "lex-secret",
    state: "ready",
  });
  const tenant = await makeTenant(h, "acme");
  return {
    h,
    tenant,
    lex,
    async close() {
      await h.deps.kb.importer.idle();
      await h.close();
      await lex.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

export async function makeCollection(
  h: Harness,
  body: Record<string, unknown>,
): Promise<{ id: string; name: string }> {
  return await ok(h, { bearer: h.adminToken }, "POST", "/api/v1/kb/collections", {
    embedding_model: "lex",
    ...body,
  });
}

/** Adds a document as the admin token and waits until its import has ended. */
export async function addDocument(
  h: Harness,
  collection: string,
  name: string,
  content: string | Uint8Array<ArrayBuffer>,
): Promise<Record<string, unknown>> {
  const res = await h.app.request(
    `/api/v1/kb/collections/${collection}/documents?name=${encodeURIComponent(name)}`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}` },
      body: typeof content === "string" ? new TextEncoder().encode(content) : content,
    },
  );
  const text = await res.text();
  assertEquals(res.status, 202, text);
  const doc = JSON.parse(text) as { id: string };
  return await settled(h, collection, doc.id);
}

/** The document once its import has ended, read as a client would: by asking until it has. */
export async function settled(
  h: Harness,
  collection: string,
  id: string,
): Promise<Record<string, unknown>> {
  const path = `/api/v1/kb/collections/${collection}/documents/${id}`;
  for (;;) {
    const doc = await ok(h, { bearer: h.adminToken }, "GET", path);
    if (doc.status !== "importing") return doc;
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function search(
  h: Harness,
  key: string,
  collection: string,
  body: Record<string, unknown>,
): Promise<Response> {
  return await h.app.request(`/v1/kb/${collection}/search`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}
