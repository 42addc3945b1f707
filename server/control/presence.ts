/**
 * Each control plane says in the store that it is alive and where nodes reach it (the
 * `control_planes` table), so a join code carries every live one's cluster URLs and a node can
 * move to another when its own goes.
 */
import { and, gt, ne } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { controlPlanes } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import type { Peers } from "./peers.ts";

export interface PresenceDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  id: string;
  /** How often the row is refreshed; a row older than three of these is not live. */
  everyMs: () => number;
  /**
   * How often the others' rows are read to tell whether this one is alone: the delay before the
   * exchanges start when a second control plane starts.
   */
  watchMs?: number;
}

export class ControlPresence implements Peers {
  #timer: ReturnType<typeof setInterval> | undefined;
  #watch: ReturnType<typeof setInterval> | undefined;
  #url = "";
  #clusterUrls: string[] = [];
  /** Until the first look: alone, since the look comes before anything is served. */
  #alone = true;
  readonly #joined: (() => void)[] = [];

  constructor(private readonly deps: PresenceDeps) {}

  get alone(): boolean {
    return this.#alone;
  }

  onJoined(fn: () => void): void {
    this.#joined.push(fn);
  }

  /** Writes this control plane's row now, then again every `everyMs`; looks for others. */
  async start(url: string, clusterUrls: string[]): Promise<void> {
    this.#url = url;
    this.#clusterUrls = clusterUrls;
    await this.#announce();
    await this.#look();
    this.#timer = setInterval(() => void this.#announce(), this.deps.everyMs());
    this.#watch = setInterval(() => void this.#look(), this.deps.watchMs ?? 1_000);
  }

  stop(): void {
    clearInterval(this.#timer);
    clearInterval(this.#watch);
  }

  /** One indexed read of a table of a few rows: what being alone costs, once a second. */
  async #look(): Promise<void> {
    const since = this.deps.clock.now() - 3 * this.deps.everyMs();
    let others: unknown[];
    try {
      others = await this.deps.store.db.select({ id: controlPlanes.id }).from(controlPlanes)
        .where(and(gt(controlPlanes.seenAt, since), ne(controlPlanes.id, this.deps.id)))
        .limit(1);
    } catch (e) {
      // Not knowing is not being alone: the exchanges run, as they did before this look.
      this.deps.logger.warn("could not read the other control planes", { error: e as Error });
      others = [undefined];
    }
    const wasAlone = this.#alone;
    this.#alone = others.length === 0;
    if (!wasAlone || this.#alone) return;
    this.deps.logger.info("another control plane shares the store: exchanging with it");
    for (const fn of this.#joined) fn();
  }

  /** Every live control plane's cluster URLs, this one's first (what a join code carries). */
  async clusterUrls(): Promise<string[]> {
    const since = this.deps.clock.now() - 3 * this.deps.everyMs();
    let rows: { id: string; clusterUrls: string[] }[] = [];
    try {
      rows = await this.deps.store.db.select({
        id: controlPlanes.id,
        clusterUrls: controlPlanes.clusterUrls,
      }).from(controlPlanes).where(gt(controlPlanes.seenAt, since));
    } catch (e) {
      this.deps.logger.warn("could not read the other control planes", { error: e as Error });
    }
    const others = rows.filter((r) => r.id !== this.deps.id).flatMap((r) => r.clusterUrls);
    return [...new Set([...this.#clusterUrls, ...others])];
  }

  async #announce(): Promise<void> {
    const row = {
      id: this.deps.id,
      url: this.#url,
      clusterUrls: this.#clusterUrls,
      seenAt: this.deps.clock.now(),
    };
    try {
      await this.deps.store.write((tx) =>
        tx.insert(controlPlanes).values(row).onConflictDoUpdate({
          target: controlPlanes.id,
          set: row,
        })
      );
    } catch (e) {
      this.deps.logger.warn("could not say in the store that this control plane is up", {
        error: e as Error,
      });
    }
  }
}
