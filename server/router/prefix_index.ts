/**
 * Which replica last saw each prompt prefix, as a bounded LRU of block hashes (see
 * request_keys.ts). The engine keeps that prefix in its prompt cache, so sending a request that
 * shares it there skips recomputing it. In memory only: losing it costs cache hits, not answers.
 */
export class PrefixIndex {
  readonly #map = new Map<number, string>();

  constructor(private readonly maxEntries: number) {}

  /** The replica that saw the longest of these prefixes, and how many blocks matched. */
  lookup(blocks: readonly number[]): { replicaId: string; blocks: number } | undefined {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const id = this.#map.get(blocks[i]!);
      if (id !== undefined) return { replicaId: id, blocks: i + 1 };
    }
    return undefined;
  }

  record(blocks: readonly number[], replicaId: string): void {
    for (const b of blocks) {
      this.#map.delete(b);
      this.#map.set(b, replicaId);
    }
    // Map iteration order is insertion order: the first keys are the least recently used.
    let excess = this.#map.size - this.maxEntries;
    if (excess <= 0) return;
    for (const k of this.#map.keys()) {
      if (excess-- <= 0) break;
      this.#map.delete(k);
    }
  }

  get size(): number {
    return this.#map.size;
  }
}
