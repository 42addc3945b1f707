/**
 * Each control plane says in the store that it is alive and where nodes reach it (the
 * `control_planes` table), so a join code carries every live one's cluster URLs and a node can
 * move to another when its own goes.
 */
import { gt } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { controlPlanes } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";

export interface PresenceDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  id: string;
  /** How often the row is refreshed; a row older than three of these is not live. */
  everyMs: () => number;
}

export class ControlPresence {
  #timer: ReturnType<typeof setInterval> | undefined;
  #url = "";
  #clusterUrls: string[] = [];

  constructor(private readonly deps: PresenceDeps) {}

  /** Writes this control plane's row now, then again every `everyMs`. */
  async start(url: string, clusterUrls: string[]): Promise<void> {
    this.#url = url;
    this.#clusterUrls = clusterUrls;
    await this.#announce();
    this.#timer = setInterval(() => void this.#announce(), this.deps.everyMs());
  }

  stop(): void {
    clearInterval(this.#timer);
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
