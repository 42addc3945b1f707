/**
 * How a control plane's caches (catalog, keys, limits, orgs/teams/projects/people, live
 * settings) learn that another control plane sharing the
 * store changed what they hold. `ChangeFeed` is the seam: the store's own notification where it
 * has one (PostgreSQL's LISTEN/NOTIFY), and here the portable one, `PollingChangeFeed`: a
 * counter row per topic (`change_counters`), added to after a write and read every `pollMs`.
 * Every listener also runs every `reloadMs` whatever the counters say: the safety net for a
 * change whose counter write was lost.
 */
import { sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { changeCounters } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";

export type ChangeTopic = "catalog" | "keys" | "limits" | "tenancy" | "settings";

export interface ChangeFeed {
  /** Says that this control plane changed `topic` in the store (after the write). */
  changed(topic: ChangeTopic): void;
  /** Runs `fn` when another control plane changed `topic` (and at each safety-net reload). */
  on(topic: ChangeTopic, fn: () => unknown): void;
}

/** A control plane alone with its store: nobody else changes it. */
export const noChangeFeed: ChangeFeed = { changed: () => {}, on: () => {} };

export class PollingChangeFeed implements ChangeFeed {
  readonly #listeners = new Map<ChangeTopic, (() => unknown)[]>();
  /** The counters as last read or written here. */
  readonly #seen = new Map<string, number>();
  #poll: ReturnType<typeof setInterval> | undefined;
  #reload: ReturnType<typeof setInterval> | undefined;
  #busy = false;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      pollMs: number;
      reloadMs: number;
    },
  ) {}

  /** Reads the counters as they are (changes before now are in the caches already), then polls. */
  async start(): Promise<void> {
    await this.#read(false);
    this.#poll = setInterval(() => void this.#read(true), this.deps.pollMs);
    this.#reload = setInterval(() => {
      for (const topic of this.#listeners.keys()) this.#fire(topic);
    }, this.deps.reloadMs);
  }

  stop(): void {
    clearInterval(this.#poll);
    clearInterval(this.#reload);
  }

  on(topic: ChangeTopic, fn: () => unknown): void {
    this.#listeners.set(topic, [...(this.#listeners.get(topic) ?? []), fn]);
  }

  changed(topic: ChangeTopic): void {
    const now = this.deps.clock.now();
    this.deps.store.write((tx) =>
      tx.insert(changeCounters).values({ topic, version: 1, changedAt: now })
        .onConflictDoUpdate({
          target: changeCounters.topic,
          set: { version: sql`${changeCounters.version} + 1`, changedAt: now },
        })
        .returning({ version: changeCounters.version })
    ).then(([row]) => {
      // Our own change is in our cache already; a later one by another still shows.
      if (row && row.version === (this.#seen.get(topic) ?? 0) + 1) {
        this.#seen.set(topic, row.version);
      }
    }).catch((e) =>
      this.deps.logger.warn("could not tell the other control planes of a change", {
        topic,
        error: e as Error,
      })
    );
  }

  async #read(fire: boolean): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      for (const row of await this.deps.store.db.select().from(changeCounters)) {
        const before = this.#seen.get(row.topic);
        this.#seen.set(row.topic, row.version);
        if (fire && row.version !== before) this.#fire(row.topic as ChangeTopic);
      }
    } catch (e) {
      this.deps.logger.warn("could not read the change counters; will retry", {
        error: e as Error,
      });
    } finally {
      this.#busy = false;
    }
  }

  #fire(topic: ChangeTopic): void {
    for (const fn of this.#listeners.get(topic) ?? []) {
      Promise.resolve().then(fn).catch((e) =>
        this.deps.logger.warn("a cache could not reload after a change", {
          topic,
          error: e as Error,
        })
      );
    }
  }
}
