/**
 * Each control plane says in the store that it is alive and where nodes reach it (the
 * `control_planes` table), so a join code carries every live one's cluster URLs and a node can
 * move to another when its own goes.
 */
import { and, eq, gt, ne } from "drizzle-orm";
import { ConfigError } from "../../core/settings.ts";
import { newUlid } from "../../core/ulid.ts";
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
  /** This process's own id, beside the control id that names its place in the cluster. */
  readonly bootId = newUlid();

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
    await this.#refuseATwin();
    await this.#announce();
    await this.#look();
    this.#timer = setInterval(() => void this.#announce(), this.deps.everyMs());
    this.#watch = setInterval(() => void this.#look(), this.deps.watchMs ?? 1_000);
  }

  stop(): void {
    clearInterval(this.#timer);
    clearInterval(this.#watch);
  }

  /**
   * Another running process with this control id (a cloned VM with the packaged data directory,
   * a second `llmgw server` on one) would renew this one's lease as its own, and both would lead.
   * A row under this id that another process keeps fresh says so: wait one announce and look
   * again. A row left by this id's previous process (a restart) goes stale and is taken over.
   */
  async #refuseATwin(): Promise<void> {
    const read = async () => {
      const [row] = await this.deps.store.db.select().from(controlPlanes)
        .where(eq(controlPlanes.id, this.deps.id));
      return row;
    };
    const first = await read().catch(() => undefined);
    const freshSince = this.deps.clock.now() - 3 * this.deps.everyMs();
    if (!first?.bootId || first.bootId === this.bootId || first.seenAt <= freshSince) return;
    await new Promise((r) => setTimeout(r, this.deps.everyMs() + 250));
    const second = await read().catch(() => undefined);
    if (!second?.bootId || second.bootId === this.bootId || second.seenAt <= first.seenAt) return;
    throw new ConfigError(
      `Another control plane is running with control id '${this.deps.id}' (its API at ` +
        `${second.url}, seen in the store just now). Two processes with one id would both ` +
        `lead: give each machine its own control.id (LLMGW_CONTROL_ID), or stop the other.`,
    );
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
      bootId: this.bootId,
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
