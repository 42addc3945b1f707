/**
 * A document into a collection: read and split at once (a file that cannot be read is refused
 * in the answer), its passages written without vectors, then embedded in the background in
 * batches of 32, four batches at once, each batch's vectors and the document's progress saved
 * as it comes back. The store is the state: after a restart, `resume` embeds what is left.
 */
import type { Logger } from "../../core/log.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Embedder } from "./embedder.ts";
import type { Collection, KbDocument, KbStore } from "./kb_store.ts";
import { type DocumentFormat, formatOfName, readDocument } from "./read_document.ts";
import { splitPassages } from "./split_passages.ts";

export const embedBatch = 32;
export const embedParallel = 4;

export interface NewDocument {
  name: string;
  bytes: Uint8Array;
  format?: DocumentFormat;
}

export class KbImporter {
  /** Document id → its running import, so tests and `ctl` can wait for the end. */
  readonly #running = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: { kb: KbStore; embedder: Embedder; logger: Logger },
  ) {}

  async add(c: Collection, doc: NewDocument, caller: ApiKeyInfo): Promise<KbDocument> {
    const format = doc.format ?? formatOfName(doc.name);
    const sections = await readDocument(doc.name, format, doc.bytes);
    const passages = splitPassages(sections, { words: c.passageWords, overlap: c.overlapWords });
    const { document } = await this.deps.kb.putDocument(c.id, {
      name: doc.name,
      format,
      bytes: doc.bytes.length,
    }, passages);
    this.#start(c, document, caller);
    return document;
  }

  /**
   * Goes on with the documents a stopped control plane left importing (no progress for
   * `staleMs`), each as `callerOf` its collection.
   */
  async resume(callerOf: (c: Collection) => ApiKeyInfo, staleMs = 60_000): Promise<void> {
    for (const doc of await this.deps.kb.unfinished(staleMs)) {
      if (this.#running.has(doc.id)) continue;
      const c = await this.deps.kb.collection(doc.collectionId);
      if (c) this.#start(c, doc, callerOf(c));
    }
  }

  /** Resolves when the document's import has ended (at once if none runs). */
  async settled(documentId: string): Promise<void> {
    await this.#running.get(documentId);
  }

  /** Waits for every import running now. */
  async idle(): Promise<void> {
    await Promise.all([...this.#running.values()]);
  }

  #start(c: Collection, doc: KbDocument, caller: ApiKeyInfo): void {
    const run = this.#embedAll(c, doc, caller)
      .catch((e) => this.deps.logger.error("knowledge base import failed", { error: e }))
      .finally(() => this.#running.delete(doc.id));
    this.#running.set(doc.id, run);
  }

  async #embedAll(c: Collection, doc: KbDocument, caller: ApiKeyInfo): Promise<void> {
    const todo = await this.deps.kb.unembedded(doc.id);
    const batches: (typeof todo)[] = [];
    for (let i = 0; i < todo.length; i += embedBatch) batches.push(todo.slice(i, i + embedBatch));
    let dims = c.dims;
    let failure: string | null = null;
    let gone = false;
    const worker = async () => {
      for (let batch = batches.shift(); batch && !failure && !gone; batch = batches.shift()) {
        try {
          const texts = batch.map((p) => (p.heading ? `${p.heading}\n${p.text}` : p.text));
          const vectors = await this.deps.embedder.embed(c.embeddingModel, texts, caller);
          dims ??= vectors[0]?.length ?? null;
          if (vectors.some((v) => v.length !== dims)) {
            throw new Error(
              `${c.embeddingModel} gave vectors of ${
                vectors[0]?.length
              } numbers, the collection's have ${dims}`,
            );
          }
          const saved = await this.deps.kb.saveEmbeddings(
            doc.id,
            new Map(batch.map((p, i) => [p.id, vectors[i]!])),
          );
          if (!saved) gone = true; // deleted or replaced meanwhile: nothing more to do for it
        } catch (e) {
          failure ??= e instanceof Error ? e.message : String(e);
        }
      }
    };
    await Promise.all(Array.from({ length: embedParallel }, worker));
    if (gone) return;
    if (dims !== c.dims && !failure) await this.deps.kb.setCollection(c.id, { dims });
    await this.deps.kb.finishDocument(doc.id, failure);
    await this.deps.kb.setCollection(c.id, {
      lastError: failure ? `${doc.name}: ${failure}` : null,
    });
  }
}
