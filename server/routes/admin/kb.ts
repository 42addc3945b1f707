/**
 * Knowledge bases on the admin API: collections made at a project or an organisation, their
 * documents added (the file's bytes as the body, so a PDF needs no encoding), replaced by adding
 * the same name again, and removed; a collection's answer carries its status (documents,
 * passages, how many are embedded, the embedding model, the last error). Whoever may change a
 * place's part of the tree may change its collections; whoever may read it, read them.
 */
import { z } from "zod";
import { AppError } from "../../../core/errors.ts";
import type { AdminDeps } from "./admin_deps.ts";
import { importCaller, type KnowledgeBases } from "../../kb/knowledge_bases.ts";
import type { Collection, KbDocument } from "../../kb/kb_store.ts";
import { documentFormats } from "../../kb/read_document.ts";
import { type Actor, canRead, requireRead, requireWrite } from "../../tenancy/access.ts";
import type { Place } from "../../tenancy/tenancy.ts";
import type { AdminRegistry } from "./registry.ts";

/** The largest document one request may add. */
export const kbMaxDocumentBytes = 32 * 1024 * 1024;

const createBody = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][\w.-]{0,63}$/, "letters, digits, . _ - (at most 64)"),
  /** The project whose keys search it; or, without one, the organisation whose projects all do. */
  project_id: z.string().optional(),
  org_id: z.string().optional(),
  embedding_model: z.string().min(1),
  passage_words: z.number().int().min(20).max(2000).optional(),
  overlap_words: z.number().int().min(0).max(1000).optional(),
});

const documentQuery = z.strictObject({
  // Checked in the handler, after the collection: another tenant's is a 404 whatever is sent.
  name: z.string().min(1).max(255).optional(),
  format: z.enum(documentFormats).optional(),
});

export function kbRoutes(
  r: AdminRegistry,
  deps: Pick<AdminDeps, "people" | "catalog" | "kb">,
): void {
  const { kb } = deps;
  const tenancy = deps.people.tenancy;
  const audit = (actor: Actor, action: string, c: Collection, before: unknown, after: unknown) =>
    deps.people.audit.record(
      actor,
      action,
      { kind: "kb", id: c.id, orgId: c.orgId },
      before,
      after,
    );
  const placeOf = (c: Pick<Collection, "orgId" | "projectId">): Place =>
    c.projectId ? tenancy.placeOfProject(c.projectId) : { orgId: c.orgId, teamId: null };

  /** The collection in the path, if the actor may read it; 404 either way otherwise. */
  const readable = async (actor: Actor, path: string, id: string): Promise<Collection> => {
    const c = await kb.kb.collection(id);
    if (!c) throw new AppError("not_found", { path });
    requireRead(actor, "tree", placeOf(c), path);
    return c;
  };
  const writable = async (actor: Actor, path: string, id: string): Promise<Collection> => {
    const c = await readable(actor, path, id);
    requireWrite(actor, "tree", placeOf(c), path);
    return c;
  };

  r.add({
    method: "get",
    path: "/kb/collections",
    tag: "kb",
    summary: "Knowledge base collections the caller may read, with their status",
    access: "whoever may read the project or organisation",
  }, async (c, { actor }) => {
    const out = [];
    for (const col of await kb.kb.collections()) {
      if (canRead(actor, "tree", placeOf(col))) out.push(await collectionView(kb, col));
    }
    return c.json({ data: out });
  });

  r.add({
    method: "post",
    path: "/kb/collections",
    tag: "kb",
    summary:
      "Make a collection at a project (its keys search it) or an organisation (all its projects' keys do)",
    body: createBody,
    access: "administrator; tenant administrators, inside their tenant",
    status: 201,
  }, async (c, { actor, body }) => {
    const at = whereOf(deps, body);
    requireWrite(actor, "tree", placeOf(at), c.req.path);
    if (!deps.catalog.get(body.embedding_model)) {
      throw new AppError("model_not_found", { model: body.embedding_model }, "embedding_model");
    }
    const taken = (await kb.kb.collections()).some((x) =>
      x.orgId === at.orgId && x.projectId === at.projectId && x.name === body.name
    );
    if (taken) {
      throw new AppError("conflict", { detail: `a collection '${body.name}' exists` }, "name");
    }
    const words = body.passage_words ?? 120;
    const overlap = body.overlap_words ?? Math.round(words / 5);
    if (overlap >= words) {
      throw new AppError("invalid_request", {
        detail: "'overlap_words' must be fewer than 'passage_words'",
      }, "overlap_words");
    }
    const col = await kb.kb.createCollection({
      name: body.name,
      ...at,
      embeddingModel: body.embedding_model,
      passageWords: words,
      overlapWords: overlap,
    });
    const view = await collectionView(kb, col);
    await audit(actor, "kb.create", col, null, view);
    return c.json(view, 201);
  });

  r.add({
    method: "get",
    path: "/kb/collections/:id",
    tag: "kb",
    summary: "A collection and its status: documents, passages, embedded, model, last error",
    access: "whoever may read the project or organisation",
  }, async (c, { actor }) => {
    const col = await readable(actor, c.req.path, c.req.param("id")!);
    return c.json(await collectionView(kb, col));
  });

  r.add({
    method: "delete",
    path: "/kb/collections/:id",
    tag: "kb",
    summary: "Remove a collection with its documents and passages",
    access: "administrator; tenant administrators, inside their tenant",
  }, async (c, { actor }) => {
    const col = await writable(actor, c.req.path, c.req.param("id")!);
    const before = await collectionView(kb, col);
    await kb.kb.deleteCollection(col.id);
    await audit(actor, "kb.remove", col, before, null);
    return c.json({ id: col.id, deleted: true });
  });

  r.add({
    method: "get",
    path: "/kb/collections/:id/documents",
    tag: "kb",
    summary: "A collection's documents, each with its import's progress",
    access: "whoever may read the project or organisation",
  }, async (c, { actor }) => {
    const col = await readable(actor, c.req.path, c.req.param("id")!);
    return c.json({ data: (await kb.kb.documents(col.id)).map(documentView) });
  });

  r.add({
    method: "post",
    path: "/kb/collections/:id/documents",
    tag: "kb",
    summary:
      "Add a document (the body is the file: text, Markdown, HTML or PDF; ?name=FILE, ?format= when its extension does not say); the same name again replaces it. It is embedded in the background: read its progress on the document or the collection",
    query: documentQuery,
    access: "administrator; tenant administrators, inside their tenant",
    status: 202,
  }, async (c, { actor, query }) => {
    const col = await writable(actor, c.req.path, c.req.param("id")!);
    const q = query as z.infer<typeof documentQuery>;
    if (!q.name) {
      throw new AppError("invalid_request", { detail: "'name': the document's file name" }, "name");
    }
    const bytes = await readBytes(c.req.raw, kbMaxDocumentBytes);
    const doc = await kb.importer.add(
      col,
      { name: q.name, bytes, ...(q.format ? { format: q.format } : {}) },
      importCaller(actor.personId, col),
    );
    await audit(actor, "kb.document.add", col, null, { name: doc.name, bytes: doc.bytes });
    return c.json(documentView(doc), 202);
  });

  r.add({
    method: "get",
    path: "/kb/collections/:id/documents/:doc",
    tag: "kb",
    summary: "One document and its import's progress",
    access: "whoever may read the project or organisation",
  }, async (c, { actor }) => {
    const col = await readable(actor, c.req.path, c.req.param("id")!);
    const doc = await kb.kb.document(col.id, c.req.param("doc")!);
    if (!doc) throw new AppError("not_found", { path: c.req.path });
    return c.json(documentView(doc));
  });

  r.add({
    method: "delete",
    path: "/kb/collections/:id/documents/:doc",
    tag: "kb",
    summary: "Remove a document and its passages",
    access: "administrator; tenant administrators, inside their tenant",
  }, async (c, { actor }) => {
    const col = await writable(actor, c.req.path, c.req.param("id")!);
    const id = c.req.param("doc")!;
    const doc = await kb.kb.document(col.id, id);
    if (!doc || !await kb.kb.deleteDocument(col.id, id)) {
      throw new AppError("not_found", { path: c.req.path });
    }
    await audit(actor, "kb.document.remove", col, { name: doc.name }, null);
    return c.json({ id, deleted: true });
  });
}

/** The place a new collection is made at: a project, else an organisation. */
function whereOf(
  deps: Pick<AdminDeps, "people">,
  body: { project_id?: string | undefined; org_id?: string | undefined },
): { orgId: string; projectId: string | null } {
  const t = deps.people.tenancy;
  if (body.project_id !== undefined) {
    const p = t.projects.get(body.project_id);
    if (!p) {
      throw new AppError("invalid_request", { detail: "no such project" }, "project_id");
    }
    return { orgId: p.orgId, projectId: p.id };
  }
  if (body.org_id !== undefined && t.orgs.has(body.org_id)) {
    return { orgId: body.org_id, projectId: null };
  }
  throw new AppError("invalid_request", {
    detail: "a collection needs an existing 'project_id' or 'org_id'",
  }, body.org_id === undefined ? "project_id" : "org_id");
}

async function readBytes(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > limit) throw new AppError("body_too_large", { limit });
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length > limit) throw new AppError("body_too_large", { limit });
  if (bytes.length === 0) {
    throw new AppError("invalid_request", { detail: "the document is empty" });
  }
  return bytes;
}

export async function collectionView(kb: Pick<KnowledgeBases, "kb">, c: Collection) {
  return {
    id: c.id,
    object: "kb.collection",
    name: c.name,
    org_id: c.orgId,
    project_id: c.projectId,
    embedding_model: c.embeddingModel,
    dimensions: c.dims,
    passage_words: c.passageWords,
    overlap_words: c.overlapWords,
    created_at: c.createdAt,
    status: await kb.kb.status(c.id),
    last_error: c.lastError,
  };
}

export function documentView(d: KbDocument) {
  return {
    id: d.id,
    object: "kb.document",
    name: d.name,
    format: d.format,
    bytes: d.bytes,
    status: d.status,
    passages: d.passages,
    embedded: d.embedded,
    error: d.error,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}
