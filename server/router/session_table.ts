/**
 * Where each live session (conversation) sits, and how many live sessions each replica holds. An
 * engine keeps about one conversation's prompt per slot, so a replica holding more live sessions
 * than its slots makes them evict each other's caches every turn; placement reads these counts to
 * avoid that. A session is live while it sent a request within `ttlMs`. Bounded: past
 * `maxEntries` the least recently seen session is forgotten. Every operation is O(1) amortised.
 */
export interface SessionTableOptions {
  maxEntries: number;
  ttlMs: number;
}

interface Entry {
  replicaId: string;
  seenAt: number;
}

export class SessionTable {
  /** In order of last use: the first entries are the stalest. */
  readonly #byKey = new Map<number, Entry>();
  readonly #counts = new Map<string, number>();

  constructor(private readonly opts: SessionTableOptions) {}

  /** The replica the live session sits on, if any. */
  where(key: number, now: number): string | undefined {
    this.#expire(now);
    return this.#byKey.get(key)?.replicaId;
  }

  /** Live sessions the replica holds. */
  residents(replicaId: string, now: number): number {
    this.#expire(now);
    return this.#counts.get(replicaId) ?? 0;
  }

  /** The session's request went to `replicaId`: it sits there now, freshly seen. */
  place(key: number, replicaId: string, now: number): void {
    const old = this.#byKey.get(key);
    if (old) {
      this.#byKey.delete(key);
      this.#count(old.replicaId, -1);
    }
    this.#byKey.set(key, { replicaId, seenAt: now });
    this.#count(replicaId, 1);
    if (this.#byKey.size > this.opts.maxEntries) this.#drop(this.#byKey.keys().next().value!);
  }

  get size(): number {
    return this.#byKey.size;
  }

  #expire(now: number): void {
    for (const [key, e] of this.#byKey) {
      if (now - e.seenAt < this.opts.ttlMs) break;
      this.#drop(key);
    }
  }

  #drop(key: number): void {
    const e = this.#byKey.get(key);
    if (!e) return;
    this.#byKey.delete(key);
    this.#count(e.replicaId, -1);
  }

  #count(replicaId: string, delta: number): void {
    const n = (this.#counts.get(replicaId) ?? 0) + delta;
    if (n > 0) this.#counts.set(replicaId, n);
    else this.#counts.delete(replicaId);
  }
}
