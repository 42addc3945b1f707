/**
 * Growing delays per name (an address, an account, a device), kept in the store so that every
 * control plane of a cluster slows the same guesser: the first `free` failures of a kind cost
 * nothing, then each one doubles the wait before the next attempt, from `baseMs` up to `maxMs`.
 * Never a hard lock: the wait is bounded, and `forgetMs` after the last failure the name starts
 * afresh. Attempts refused while a name waits are not counted, so hammering does not make the
 * wait longer.
 *
 * An attempt is taken (the names' waits read and, when none is left, a failure counted for each)
 * in one write transaction before the slow password check, so many guesses sent at once cannot
 * all pass before the first fails; the count is an atomic upsert, so control planes counting at
 * once all count. Success takes it back (`forgive`, `clear`).
 *
 * Names are stored as the sha256 of their kind and value: an address or an email is not kept in
 * the clear, and a device mark (a cookie) never reaches the store. Rows are pruned once
 * forgotten. Sign-in is off the /v1 path, so waiting on the store here costs no client request.
 */
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { signInThrottles } from "../../db/schema.ts";
import type { Store, Tx } from "../../db/store.ts";
import { sha256Hex } from "./secrets.ts";

export interface DelayOptions {
  free: number;
  baseMs: number;
  maxMs: number;
  forgetMs: number;
}

export class StoreThrottle<Kind extends string> {
  constructor(
    private readonly deps: { store: Store; clock: Clock; kinds: Record<Kind, DelayOptions> },
  ) {}

  /**
   * One attempt for every name given: the longest wait left among them, counting nothing, or 0
   * with a failure counted for each (taken back by `forgive` or `clear` when it succeeds).
   */
  async take(names: [Kind, string][]): Promise<number> {
    const keyed = await Promise.all(names.map(async ([kind, name]) => ({
      kind,
      key: await this.#key(kind, name),
    })));
    return await this.deps.store.write(async (tx) => {
      const now = this.deps.clock.now();
      const rows = await tx.select().from(signInThrottles)
        .where(inArray(signInThrottles.name, keyed.map((k) => k.key)));
      const wait = Math.max(
        0,
        ...keyed.map(({ kind, key }) => {
          const row = rows.find((r) => r.name === key);
          return row ? this.#wait(this.deps.kinds[kind], row, now) : 0;
        }),
      );
      if (wait > 0) return wait;
      for (const { kind, key } of keyed) await this.#fail(tx, this.deps.kinds[kind], key, now);
      return 0;
    });
  }

  /** Takes back one failure of `name`. */
  async forgive(kind: Kind, name: string): Promise<void> {
    const key = await this.#key(kind, name);
    await this.deps.store.write(async (tx) => {
      await tx.delete(signInThrottles)
        .where(and(eq(signInThrottles.name, key), lte(signInThrottles.count, 1)));
      await tx.update(signInThrottles).set({ count: sql`${signInThrottles.count} - 1` })
        .where(eq(signInThrottles.name, key));
    });
  }

  /** Forgets every failure of `name`. */
  async clear(kind: Kind, name: string): Promise<void> {
    const key = await this.#key(kind, name);
    await this.deps.store.write((tx) =>
      tx.delete(signInThrottles).where(eq(signInThrottles.name, key))
    );
  }

  #wait(o: DelayOptions, e: { count: number; lastAt: number }, now: number): number {
    if (now - e.lastAt >= o.forgetMs || e.count < o.free) return 0;
    const delay = Math.min(o.maxMs, o.baseMs * 2 ** (e.count - o.free));
    return Math.max(0, e.lastAt + delay - now);
  }

  async #fail(tx: Tx, o: DelayOptions, key: string, now: number): Promise<void> {
    const stale = now - o.forgetMs;
    await tx.insert(signInThrottles).values({ name: key, count: 1, lastAt: now })
      .onConflictDoUpdate({
        target: signInThrottles.name,
        set: {
          count:
            sql`case when ${signInThrottles.lastAt} <= ${stale} then 1 else ${signInThrottles.count} + 1 end`,
          lastAt: now,
        },
      });
    await tx.delete(signInThrottles).where(lte(signInThrottles.lastAt, stale));
  }

  #key(kind: Kind, name: string): Promise<string> {
    return sha256Hex(`${kind}\u0000${name}`);
  }
}
