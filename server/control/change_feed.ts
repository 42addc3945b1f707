/**
 * How a control plane's caches (catalog, keys, limits, orgs/teams/projects/people, live
 * settings) learn that another control plane sharing the store changed what they hold: a
 * counter row per topic (`change_counters`), added to after a write and read every `pollMs`.
 * Where the store has notifications (PostgreSQL's LISTEN/NOTIFY) the counter's write also
 * notifies, in the same transaction, and every control plane reads the counters at once on
 * hearing it, so a change reaches the others in milliseconds; the poll is then only the net
 * for a notification lost while a listening connection was down (it is read again on every
 * re-listen too). Every listener also runs every `reloadMs` whatever the counters say: the
 * safety net for a change whose counter write was lost.
 */
import { sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { changeCounters } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { alone, type Peers } from "./peers.ts";

export type ChangeTopic = "catalog" | "keys" | "limits" | "tenancy" | "settings";

export interface ChangeFeed {
  /** Says that this control plane changed `topic` in the store (after the write). */
  changed(topic: ChangeTopic): void;
  /** Runs `fn` when another control plane changed `topic` (and at each safety-net reload). */
  on(topic: ChangeTopic, fn: () => unknown): void;
}

/** The notification channel the counters' writes announce themselves on. */
const channel = "llmgw_changes";

export class StoreChangeFeed implements ChangeFeed {
  readonly #listeners = new Map<ChangeTopic, (() => unknown)[]>();
  /** The counters as last read or written here. */
  readonly #seen = new Map<string, number>();
  #poll: ReturnType<typeof setInterval> | undefined;
  #reload: ReturnType<typeof setInterval> | undefined;
  #unlisten: (() => Promise<void>) | undefined;
  /** A read is running; `#again` asks for one more after it (a notification came meanwhile). */
  #busy = false;
  #again = false;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      /** How often the counters are read: the only way on SQLite, the net under notifications. */
      pollMs: number;
      /** The same where the store notifies (PostgreSQL). */
      notifiedPollMs: number;
      reloadMs: number;
      /** Alone, nobody else changes the store: the counters are read again once someone comes. */
      peers?: Peers;
    },
  ) {
    deps.peers?.onJoined(() => void this.#read(true));
  }

  /**
   * Reads the counters as they are (changes before now are in the caches already), listens where
   * the store can, then polls.
   */
  async start(): Promise<void> {
    await this.#read(false);
    const { notifications } = this.deps.store;
    let pollMs = this.deps.pollMs;
    if (notifications) {
      try {
        const listening = await notifications.listen(
          channel,
          () => void this.#read(true),
          () => void this.#read(true),
        );
        this.#unlisten = listening.unlisten;
        pollMs = this.deps.notifiedPollMs;
      } catch (e) {
        this.deps.logger.warn("cannot listen for other control planes' changes; polling", {
          error: e as Error,
        });
      }
    }
    this.#poll = setInterval(() => {
      if (!alone(this.deps.peers)) void this.#read(true);
    }, pollMs);
    this.#reload = setInterval(() => {
      for (const topic of this.#listeners.keys()) this.#fire(topic);
    }, this.deps.reloadMs);
  }

  stop(): void {
    clearInterval(this.#poll);
    clearInterval(this.#reload);
    void this.#unlisten?.().catch(() => {});
    this.#unlisten = undefined;
  }

  on(topic: ChangeTopic, fn: () => unknown): void {
    this.#listeners.set(topic, [...(this.#listeners.get(topic) ?? []), fn]);
  }

  changed(topic: ChangeTopic): void {
    const now = this.deps.clock.now();
    const { store } = this.deps;
    store.write(async (tx) => {
      const rows = await tx.insert(changeCounters).values({ topic, version: 1, changedAt: now })
        .onConflictDoUpdate({
          target: changeCounters.topic,
          set: { version: sql`${changeCounters.version} + 1`, changedAt: now },
        })
        .returning({ version: changeCounters.version });
      await store.notifications?.notify(channel, topic, tx);
      return rows;
    }).then(([row]) => {
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
    if (this.#busy) {
      // A counter may have moved after the running read passed it.
      this.#again = true;
      return;
    }
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
    if (this.#again) {
      this.#again = false;
      await this.#read(fire);
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
