/**
 * Collections, documents and passages in the store. Writes go through the store's one write
 * path; a document's passages are replaced in the same transaction that replaces its row, so a
 * search sees the old passages or the new ones, never both.
 */
import { and, asc, count, eq, inArray, isNotNull, lt, sql, sum } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { newUlid } from "../../core/ulid.ts";
import type { Store } from "../../db/store.ts";
import { kbCollections, kbDocuments, kbPassages } from "../../db/schema.ts";
import type { DocumentFormat } from "./read_document.ts";
import type { PassageText } from "./split_passages.ts";

export type Collection = typeof kbCollections.$inferSelect;
export type KbDocument = typeof kbDocuments.$inferSelect;
export type Passage = typeof kbPassages.$inferSelect;

export interface NewCollection {
  name: string;
  orgId: string;
  projectId: string | null;
  embeddingModel: string;
  passageWords: number;
  overlapWords: number;
}

export interface CollectionStatus {
  documents: number;
  passages: number;
  embedded: number;
  importing: number;
  failed: number;
}

const newId = (prefix: string) => `${prefix}_${newUlid().toLowerCase()}`;
/** Random, below 2^52: FTS5's rowid for the passage (see db/schema.ts). */
const rowKey = () => Math.floor(Math.random() * 2 ** 52) + 1;

export class KbStore {
  constructor(private readonly store: Store, private readonly clock: Clock) {}

  async createCollection(c: NewCollection): Promise<Collection> {
    const row: Collection = {
      id: newId("kb"),
      ...c,
      dims: null,
      lastError: null,
      createdAt: this.clock.now(),
    };
    await this.store.write((tx) => tx.insert(kbCollections).values(row));
    return row;
  }

  async collection(id: string): Promise<Collection | undefined> {
    const [row] = await this.store.db.select().from(kbCollections)
      .where(eq(kbCollections.id, id));
    return row;
  }

  async collections(): Promise<Collection[]> {
    return await this.store.db.select().from(kbCollections).orderBy(asc(kbCollections.name));
  }

  async deleteCollection(id: string): Promise<void> {
    await this.store.write(async (tx) => {
      // Passages first: their foreign key is to documents, whose own cascades from here.
      await tx.delete(kbPassages).where(eq(kbPassages.collectionId, id));
      await tx.delete(kbCollections).where(eq(kbCollections.id, id));
    });
  }

  async setCollection(id: string, set: Partial<Pick<Collection, "dims" | "lastError">>) {
    await this.store.write((tx) =>
      tx.update(kbCollections).set(set).where(eq(kbCollections.id, id))
    );
  }

  async status(collectionId: string): Promise<CollectionStatus> {
    const [d] = await this.store.db.select({
      documents: count(),
      passages: sum(kbDocuments.passages),
      embedded: sum(kbDocuments.embedded),
      importing: sum(sql<number>`CASE WHEN ${kbDocuments.status} = 'importing' THEN 1 ELSE 0 END`),
      failed: sum(sql<number>`CASE WHEN ${kbDocuments.status} = 'failed' THEN 1 ELSE 0 END`),
    }).from(kbDocuments).where(eq(kbDocuments.collectionId, collectionId));
    return {
      documents: Number(d?.documents ?? 0),
      passages: Number(d?.passages ?? 0),
      embedded: Number(d?.embedded ?? 0),
      importing: Number(d?.importing ?? 0),
      failed: Number(d?.failed ?? 0),
    };
  }

  async documents(collectionId: string): Promise<KbDocument[]> {
    return await this.store.db.select().from(kbDocuments)
      .where(eq(kbDocuments.collectionId, collectionId)).orderBy(asc(kbDocuments.name));
  }

  async document(collectionId: string, id: string): Promise<KbDocument | undefined> {
    const [row] = await this.store.db.select().from(kbDocuments)
      .where(and(eq(kbDocuments.collectionId, collectionId), eq(kbDocuments.id, id)));
    return row;
  }

  /** The document under its name, replacing one of the same name and all its passages. */
  async putDocument(
    collectionId: string,
    doc: { name: string; format: DocumentFormat; bytes: number },
    passages: PassageText[],
  ): Promise<{ document: KbDocument; passageIds: string[] }> {
    const now = this.clock.now();
    const document: KbDocument = {
      id: newId("kbdoc"),
      collectionId,
      ...doc,
      status: "importing",
      passages: passages.length,
      embedded: 0,
      error: null,
      createdAt: now,
      updatedAt: now,
    };
    const rows = passages.map((p, seq) => ({
      id: newId("kbp"),
      collectionId,
      documentId: document.id,
      seq,
      rowKey: rowKey(),
      heading: p.heading,
      text: p.text,
      embedding: null,
    }));
    await this.store.write(async (tx) => {
      const old = await tx.select({ id: kbDocuments.id }).from(kbDocuments)
        .where(and(eq(kbDocuments.collectionId, collectionId), eq(kbDocuments.name, doc.name)));
      if (old[0]) await this.#deleteDocumentIn(tx, old[0].id);
      await tx.insert(kbDocuments).values(document);
      // SQLite binds at most 32766 values per statement: 8 columns a row, well under in 500s.
      for (let i = 0; i < rows.length; i += 500) {
        await tx.insert(kbPassages).values(rows.slice(i, i + 500));
      }
    });
    return { document, passageIds: rows.map((r) => r.id) };
  }

  /** A batch's vectors, and the document's progress with them; false once the document is gone. */
  async saveEmbeddings(documentId: string, vectors: Map<string, number[]>): Promise<boolean> {
    return await this.store.write(async (tx) => {
      const [doc] = await tx.select({ id: kbDocuments.id }).from(kbDocuments)
        .where(eq(kbDocuments.id, documentId));
      if (!doc) return false;
      for (const [id, v] of vectors) {
        await tx.update(kbPassages).set({ embedding: JSON.stringify(v) })
          .where(eq(kbPassages.id, id));
      }
      // Counted, not added to: a batch saved twice (a resumed import) counts once.
      const [done] = await tx.select({ n: count() }).from(kbPassages)
        .where(and(eq(kbPassages.documentId, documentId), isNotNull(kbPassages.embedding)));
      await tx.update(kbDocuments).set({ embedded: done?.n ?? 0, updatedAt: this.clock.now() })
        .where(eq(kbDocuments.id, documentId));
      return true;
    });
  }

  async finishDocument(documentId: string, error: string | null): Promise<void> {
    await this.store.write((tx) =>
      tx.update(kbDocuments).set({
        status: error === null ? "ready" : "failed",
        error,
        updatedAt: this.clock.now(),
      }).where(eq(kbDocuments.id, documentId))
    );
  }

  /**
   * Documents left importing with no progress for `staleMs`: the control plane embedding them
   * stopped (a live one saves a batch every few seconds at most).
   */
  async unfinished(staleMs: number): Promise<KbDocument[]> {
    return await this.store.db.select().from(kbDocuments).where(and(
      eq(kbDocuments.status, "importing"),
      lt(kbDocuments.updatedAt, this.clock.now() - staleMs),
    ));
  }

  /** Passages of a document still without a vector. */
  async unembedded(documentId: string): Promise<Pick<Passage, "id" | "text" | "heading">[]> {
    return await this.store.db.select({
      id: kbPassages.id,
      text: kbPassages.text,
      heading: kbPassages.heading,
    }).from(kbPassages)
      .where(and(eq(kbPassages.documentId, documentId), sql`${kbPassages.embedding} IS NULL`))
      .orderBy(asc(kbPassages.seq));
  }

  async deleteDocument(collectionId: string, id: string): Promise<boolean> {
    return await this.store.write(async (tx) => {
      const [doc] = await tx.select({ id: kbDocuments.id }).from(kbDocuments)
        .where(and(eq(kbDocuments.collectionId, collectionId), eq(kbDocuments.id, id)));
      if (!doc) return false;
      await this.#deleteDocumentIn(tx, id);
      return true;
    });
  }

  async #deleteDocumentIn(tx: Parameters<Parameters<Store["write"]>[0]>[0], id: string) {
    await tx.delete(kbPassages).where(eq(kbPassages.documentId, id));
    await tx.delete(kbDocuments).where(eq(kbDocuments.id, id));
  }

  /** Passages by id with their documents' names, for search answers. */
  async passagesWithSource(ids: string[]): Promise<(Passage & { document: string })[]> {
    if (ids.length === 0) return [];
    const rows = await this.store.db.select({ p: kbPassages, document: kbDocuments.name })
      .from(kbPassages).innerJoin(kbDocuments, eq(kbDocuments.id, kbPassages.documentId))
      .where(inArray(kbPassages.id, ids));
    return rows.map((r) => ({ ...r.p, document: r.document }));
  }
}
