/**
 * Rate limits across control planes: every interval (1 s by default, so within the 2 s the spec
 * allows) each control plane writes its own absolute count per rate window and minute to the
 * store, then reads what every other control plane wrote for the minutes still in view and hands
 * those to its windows. Admission never waits on this: it reads the windows in memory, and the
 * windows' share rule (see window.ts) keeps control planes from spending the same room twice
 * between two exchanges. A lost exchange only makes counts older; the next one catches up, since
 * every row is absolute.
 *
 * Plain Drizzle upserts, selects and deletes: the same on SQLite and PostgreSQL.
 */
import { and, eq, gt, gte, lt, ne, or } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { rateCounts } from "../../db/schema.ts";
import type { RateWindows } from "../accounting/rate_windows.ts";
import { alone, type Peers } from "../control/peers.ts";

/** The presence row's name: a control plane that reported lately counts in the share. */
const presence = "";
/**
 * Where requests running now are reported (`max_parallel` and the fair queue count them across
 * control planes): a gauge, not a window, so its rows sit at window 0 under names `p|level|model`.
 */
const gauge = 0;
const gaugePrefix = "p|";

/** Requests running per level and model (`level|model`): admission's, here and elsewhere. */
export interface RunningCounts {
  runningHere(): Iterable<[string, number]>;
  runningElsewhere(counts: Map<string, number>): void;
}

export interface WindowExchangeOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  windows: RateWindows;
  running: RunningCounts;
  /** This control plane's id in the rows, unique among those sharing the store. */
  plane: string;
  intervalMs: number;
  /** Alone, the windows are this control plane's own: nothing goes through the store. */
  peers?: Peers;
}

export class WindowExchange {
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;
  /** What each window last reported, so unchanged counts are not written again. */
  readonly #reported = new Map<string, { start: number; count: number }>();
  /** Running gauges last reported, so one that fell to 0 is written as 0 once. */
  #gauges = new Map<string, number>();

  constructor(private readonly o: WindowExchangeOptions) {
    o.peers?.onJoined(() => void this.tick());
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), this.o.intervalMs);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
    await this.o.store.write((tx) =>
      tx.delete(rateCounts).where(
        and(eq(rateCounts.plane, this.o.plane), eq(rateCounts.name, presence)),
      )
    ).catch(() => {});
  }

  /** One exchange; a tick still running when the next is due is not doubled. */
  tick(): Promise<void> {
    if (alone(this.o.peers) && !this.#running) return Promise.resolve(this.#solo());
    this.#running ??= this.#exchange().catch((e) => {
      this.o.logger.warn("rate counts not exchanged; will retry", { error: e });
    }).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Gauges that changed, and every one still above 0 (its `reported_at` keeps it alive). */
  #gaugeRows(now: number): (typeof rateCounts.$inferInsert)[] {
    const { plane } = this.o;
    const current = new Map(this.o.running.runningHere());
    const rows: (typeof rateCounts.$inferInsert)[] = [];
    for (const [name, n] of current) {
      rows.push({ plane, name: gaugePrefix + name, windowStart: gauge, count: n, reportedAt: now });
    }
    for (const name of this.#gauges.keys()) {
      if (current.has(name)) continue;
      rows.push({ plane, name: gaugePrefix + name, windowStart: gauge, count: 0, reportedAt: now });
    }
    this.#gauges = current;
    return rows;
  }

  /**
   * What an exchange with nobody would hand the windows: no other counts, one plane. The counts
   * go out whole (they are absolute) at the first exchange once another control plane appears.
   */
  #solo(): void {
    const now = this.o.clock.now();
    if (this.#gauges.size) this.o.running.runningElsewhere(new Map());
    this.o.windows.planes = 1;
    for (const [, w] of this.o.windows.entries()) w.synced(now, w.pending(), new Map(), 1);
  }

  async #exchange(): Promise<void> {
    const { store, clock, windows, plane, intervalMs } = this.o;
    const now = clock.now();
    const minute = now - (now % windows.ms);
    const sent = new Map<string, number>();
    const rows: (typeof rateCounts.$inferInsert)[] = [
      { plane, name: presence, windowStart: 0, count: 0, reportedAt: now },
    ];
    for (const [name, w] of windows.entries()) {
      sent.set(name, w.pending());
      const count = Math.round(w.own(minute));
      const last = this.#reported.get(name);
      if (last && last.start === minute && last.count === count) continue;
      if (!last && count === 0) continue;
      rows.push({ plane, name, windowStart: minute, count, reportedAt: now });
      this.#reported.set(name, { start: minute, count });
    }
    rows.push(...this.#gaugeRows(now));
    await store.write(async (tx) => {
      for (const row of rows) {
        await tx.insert(rateCounts).values(row).onConflictDoUpdate({
          target: [rateCounts.plane, rateCounts.name, rateCounts.windowStart],
          set: { count: row.count, reportedAt: row.reportedAt },
        });
      }
      // Minutes out of every window's view; stale presences after a while, for a plane that died.
      await tx.delete(rateCounts).where(
        and(gt(rateCounts.windowStart, gauge), lt(rateCounts.windowStart, minute - windows.ms)),
      );
      await tx.delete(rateCounts).where(
        and(eq(rateCounts.windowStart, gauge), lt(rateCounts.reportedAt, now - 60 * intervalMs)),
      );
    });
    const others = await store.db.select().from(rateCounts).where(
      and(
        ne(rateCounts.plane, plane),
        or(eq(rateCounts.windowStart, gauge), gte(rateCounts.windowStart, minute - windows.ms)),
      ),
    );
    const planes = new Set([plane]);
    const byName = new Map<string, Map<number, number>>();
    for (const r of others) {
      if (r.name === presence && r.reportedAt >= now - 3 * intervalMs) planes.add(r.plane);
    }
    const elsewhere = new Map<string, number>();
    for (const r of others) {
      if (r.windowStart === gauge) {
        // Only a control plane still present runs anything: a dead one's gauges are not counted.
        if (r.name !== presence && planes.has(r.plane) && r.count > 0) {
          const name = r.name.slice(gaugePrefix.length);
          elsewhere.set(name, (elsewhere.get(name) ?? 0) + r.count);
        }
        continue;
      }
      let m = byName.get(r.name);
      if (!m) byName.set(r.name, m = new Map());
      m.set(r.windowStart, (m.get(r.windowStart) ?? 0) + r.count);
    }
    const after = clock.now();
    // A window another control plane counts on exists here too, before its first request here.
    for (const name of byName.keys()) windows.get(name);
    this.o.running.runningElsewhere(elsewhere);
    windows.planes = planes.size;
    for (const [name, w] of windows.entries()) {
      w.synced(after, sent.get(name) ?? 0, byName.get(name) ?? new Map(), planes.size);
    }
  }
}
