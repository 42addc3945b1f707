/**
 * The answer cache's memory: answers by key, least recently used first out once the total
 * passes its size, none larger than the per-entry cap; and beside them the questions' embeddings,
 * grouped by what else the request said, for similar questions. One per control plane, never
 * shared: several control planes each keep their own.
 */

/** What is kept of one answer, enough to give it back in the shape it was asked in. */
export interface CachedAnswer {
  /** `json`: the whole answer as it was sent; `events`: a stream's content events, no usage, no end. */
  readonly shape: "json" | "events";
  readonly body: Uint8Array<ArrayBuffer>;
  readonly contentType: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** The model that answered (`x-llmgw-served-model`). */
  readonly servedModel: string;
  /** A stream's id, object, time and model, which its usage chunk repeats. */
  readonly head: Record<string, unknown> | undefined;
}

export interface CacheEntry {
  readonly key: string;
  /** The catalog's name for the model: its entries go when it changes. */
  readonly model: string;
  readonly answer: CachedAnswer;
  readonly bytes: number;
  /** The question's embedding (unit length) and the group of requests it may stand in for. */
  readonly similar: { readonly group: string; readonly vector: Float32Array } | undefined;
}

export interface AnswerCacheOptions {
  /** Total bytes kept; past it the least recently used answers go first. */
  maxBytes: number;
  /** An answer larger than this is not kept. */
  maxEntryBytes: number;
  /** Questions kept with embeddings, at most: a similar lookup scans its group among them. */
  maxSimilar: number;
  /** The catalog model that embeds questions for similar lookups; empty: exact answers only. */
  embeddingModel: string;
}

export interface ModelCacheStats {
  entries: number;
  bytes: number;
}

/** What an entry costs besides its answer: its key, its map slots, its numbers. */
const entryOverhead = 256;

export class AnswerCache {
  /** Insertion order is use order: a hit moves its entry to the end. */
  readonly #entries = new Map<string, CacheEntry>();
  readonly #perModel = new Map<string, ModelCacheStats>();
  readonly #groups = new Map<string, Set<CacheEntry>>();
  #bytes = 0;
  #similar = 0;

  constructor(readonly options: AnswerCacheOptions) {}

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The answer kept under `key`, now the most recently used. */
  get(key: string): CacheEntry | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e;
  }

  /**
   * Keeps an answer; false when it is over the per-entry cap. Older answers go to make room, and
   * past the cap on embeddings the oldest question with one goes.
   */
  put(
    key: string,
    model: string,
    answer: CachedAnswer,
    similar?: { group: string; vector: Float32Array },
  ): boolean {
    const bytes = answer.body.byteLength + key.length + entryOverhead +
      (similar ? similar.vector.byteLength + similar.group.length : 0);
    if (answer.body.byteLength > this.options.maxEntryBytes || bytes > this.options.maxBytes) {
      return false;
    }
    const old = this.#entries.get(key);
    if (old) this.#remove(old);
    if (similar && this.#similar >= this.options.maxSimilar) this.#dropOldestSimilar();
    while (this.#bytes + bytes > this.options.maxBytes) {
      const oldest = this.#entries.values().next().value;
      if (!oldest) break;
      this.#remove(oldest);
    }
    const entry: CacheEntry = { key, model, answer, bytes, similar };
    this.#entries.set(key, entry);
    this.#bytes += bytes;
    const stats = this.#perModel.get(model) ?? { entries: 0, bytes: 0 };
    stats.entries++;
    stats.bytes += bytes;
    this.#perModel.set(model, stats);
    if (similar) {
      let set = this.#groups.get(similar.group);
      if (!set) this.#groups.set(similar.group, set = new Set());
      set.add(entry);
      this.#similar++;
    }
    return true;
  }

  /**
   * The kept question of `group` nearest to `vector` (unit length), when its cosine similarity is
   * at least `threshold`. A linear scan of the group: the number of questions with embeddings is
   * capped (`maxSimilar`).
   */
  nearest(
    group: string,
    vector: Float32Array,
    threshold: number,
  ): { entry: CacheEntry; similarity: number } | undefined {
    const set = this.#groups.get(group);
    if (!set) return undefined;
    let best: CacheEntry | undefined;
    let bestScore = -Infinity;
    for (const e of set) {
      const score = dot(e.similar!.vector, vector);
      if (score > bestScore) [best, bestScore] = [e, score];
    }
    if (!best || bestScore < threshold) return undefined;
    return { entry: this.get(best.key)!, similarity: bestScore };
  }

  /** A model changed or went: none of its answers may be given again. */
  dropModel(model: string): void {
    if (!this.#perModel.has(model)) return;
    for (const e of [...this.#entries.values()]) if (e.model === model) this.#remove(e);
    this.#perModel.delete(model);
  }

  /** Entries and bytes per model, for the metrics. */
  stats(): ReadonlyMap<string, ModelCacheStats> {
    return this.#perModel;
  }

  #remove(e: CacheEntry): void {
    this.#entries.delete(e.key);
    this.#bytes -= e.bytes;
    const stats = this.#perModel.get(e.model);
    if (stats) {
      stats.entries--;
      stats.bytes -= e.bytes;
    }
    if (e.similar) {
      const set = this.#groups.get(e.similar.group);
      set?.delete(e);
      if (set?.size === 0) this.#groups.delete(e.similar.group);
      this.#similar--;
    }
  }

  #dropOldestSimilar(): void {
    for (const e of this.#entries.values()) {
      if (e.similar) return this.#remove(e);
    }
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -Infinity;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** A vector scaled to unit length, so a dot product is the cosine; undefined for a zero vector. */
export function unitVector(v: readonly number[]): Float32Array | undefined {
  let norm = 0;
  for (const x of v) norm += x * x;
  if (!(norm > 0)) return undefined;
  const n = Math.sqrt(norm);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}
