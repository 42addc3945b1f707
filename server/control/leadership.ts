/**
 * Which of the control planes sharing a store leads: a lease row in the store (`control_leases`,
 * named `leader`), taken when absent or lapsed and renewed every third of `control.lease_ttl_ms`.
 * Each takeover adds one to its epoch (the fencing token). The leader-only work (the reconciler,
 * retention, webhooks) is registered here as duties, started on gaining the lease and stopped on
 * losing it, so no other file needs to know how leadership is decided.
 *
 * Both statements are single atomic statements any SQL store runs the same way (an insert that
 * yields to an existing row, an update guarded by holder-or-lapsed), so two control planes that
 * try at once cannot both win, whichever dialect the store speaks.
 */
import { and, eq, lte, or, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { controlLeases } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";

const leaseName = "leader";

/** Who leads, as the store says. */
export interface LeaderInfo {
  id: string;
  url: string;
  epoch: number;
  expiresAt: number;
}

/** Work only the leader does: started when this control plane gains the lease, stopped on loss. */
export interface LeaderDuty {
  name: string;
  start(): unknown;
  stop(): unknown;
}

/** What the rest of the control plane asks of leadership. */
export interface LeaderGate {
  readonly id: string;
  readonly isLeader: boolean;
  readonly epoch: number;
  duty(d: LeaderDuty): void;
  leader(): Promise<LeaderInfo | undefined>;
}

/**
 * A control plane wired without a lease (the tests' harness): it always leads, and each duty
 * starts when added.
 */
export function soleLeader(url: string): LeaderGate {
  return {
    id: "sole",
    isLeader: true,
    epoch: 0,
    duty(d) {
      // Nobody else leads, so there is nothing to take over: a duty that fails to start is
      // only the later of its own retries.
      Promise.resolve().then(() => d.start()).catch(() => {});
    },
    leader: () => Promise.resolve({ id: "sole", url, epoch: 0, expiresAt: Infinity }),
  };
}

export interface LeadershipDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** This control plane's id in the lease. */
  id: string;
  /** Where this control plane's client API answers, until `setUrl` says where it listens. */
  url: string;
  /** Read at each renewal, so a live change applies. */
  ttlMs: () => number;
  /**
   * Time that only moves forward, for how long our lease still holds here (performance.now by
   * default): the wall clock in the store may jump, or be a test's controllable clock.
   */
  monotonic?: () => number;
}

export class Leadership implements LeaderGate {
  readonly id: string;
  #url: string;
  readonly #log: Logger;
  readonly #duties: LeaderDuty[] = [];
  /** Our lease's end by the monotonic clock, while we hold it. */
  #heldUntil = 0;
  readonly #monotonic: () => number;
  #epoch = 0;
  #leading = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #turn: Promise<void> = Promise.resolve();

  constructor(private readonly deps: LeadershipDeps) {
    this.id = deps.id;
    this.#url = deps.url;
    this.#monotonic = deps.monotonic ?? (() => performance.now());
    this.#log = deps.logger.child({ component: "leadership" });
  }

  /** True while this control plane holds an unlapsed lease. */
  get isLeader(): boolean {
    return this.#leading && this.#monotonic() < this.#heldUntil;
  }

  /** The epoch of the lease this control plane holds (0 when it never led). */
  get epoch(): number {
    return this.#epoch;
  }

  /** Where this control plane answers, written into the lease at the next try. */
  setUrl(url: string): void {
    this.#url = url;
  }

  /** Adds leader-only work; started at once when this control plane already leads. */
  duty(d: LeaderDuty): void {
    this.#duties.push(d);
    if (this.#leading) this.#startDuty(d);
  }

  /** Tries for the lease now, then again every third of the lease's life. */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.tick();
    this.#schedule();
  }

  /**
   * Stops trying and gives the lease up (its end set to now), so a standby takes over at its next
   * try rather than after the lease's life.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#serial(async () => {
      if (!this.#leading) return;
      this.#lose("stopping");
      try {
        await this.deps.store.write((tx) =>
          tx.update(controlLeases).set({ expiresAt: this.deps.clock.now() })
            .where(and(eq(controlLeases.name, leaseName), eq(controlLeases.holderId, this.id)))
        );
      } catch (e) {
        this.#log.warn("could not give the lease up; it lapses on its own", { error: e as Error });
      }
    });
  }

  /** One try: take or renew the lease; a lapsed one of ours that cannot be renewed is lost. */
  tick(): Promise<void> {
    return this.#serial(async () => {
      if (this.#stopped) return;
      const now = this.deps.clock.now();
      // Taken before the write: the lease holds here no longer than it does in the store.
      const since = this.#monotonic();
      const ttl = this.deps.ttlMs();
      let epoch: number | undefined | "unknown";
      try {
        epoch = await this.#claim(now, ttl);
      } catch (e) {
        this.#log.warn("the leader lease could not be read or written", { error: e as Error });
        epoch = "unknown";
      }
      if (typeof epoch === "number") {
        const gained = !this.#leading || epoch !== this.#epoch;
        if (gained && this.#leading) this.#lose(`the lease moved to epoch ${epoch}`);
        this.#heldUntil = since + ttl;
        this.#epoch = epoch;
        if (gained) this.#gain();
      } else if (epoch === undefined && this.#leading) {
        this.#lose("another control plane holds the lease");
      } else if (this.#leading && this.#monotonic() >= this.#heldUntil) {
        // The store cannot be reached: we lead only as long as the lease we last wrote.
        this.#lose("the lease lapsed unrenewed");
      }
    });
  }

  /** Who leads, as the store says; undefined when nobody holds an unlapsed lease. */
  async leader(): Promise<LeaderInfo | undefined> {
    const [row] = await this.deps.store.db.select().from(controlLeases)
      .where(eq(controlLeases.name, leaseName));
    if (!row || row.expiresAt <= this.deps.clock.now()) return undefined;
    return { id: row.holderId, url: row.holderUrl, epoch: row.epoch, expiresAt: row.expiresAt };
  }

  /** Takes or renews the lease; its epoch when this control plane holds it after, else undefined. */
  async #claim(now: number, ttlMs: number): Promise<number | undefined> {
    const url = this.#url;
    const id = this.id;
    const keep = this.#leading;
    return await this.deps.store.write(async (tx) => {
      const inserted = await tx.insert(controlLeases)
        .values({ name: leaseName, holderId: id, holderUrl: url, epoch: 1, expiresAt: now + ttlMs })
        .onConflictDoNothing()
        .returning({ epoch: controlLeases.epoch });
      if (inserted[0]) return inserted[0].epoch;
      const updated = await tx.update(controlLeases)
        .set({
          holderId: id,
          holderUrl: url,
          epoch:
            // Kept only by a renewal within this process's term: a restart with the same id (or
            // a term that lapsed and is taken again) is a new term, so fencing can tell them apart.
            keep
              ? sql`case when ${controlLeases.holderId} = ${id} then ${controlLeases.epoch} else ${controlLeases.epoch} + 1 end`
              : sql`${controlLeases.epoch} + 1`,
          expiresAt: now + ttlMs,
        })
        .where(and(
          eq(controlLeases.name, leaseName),
          or(eq(controlLeases.holderId, id), lte(controlLeases.expiresAt, now)),
        ))
        .returning({ epoch: controlLeases.epoch });
      return updated[0]?.epoch;
    });
  }

  #gain(): void {
    this.#leading = true;
    this.#log.info("this control plane leads", { id: this.id, epoch: this.#epoch });
    for (const d of this.#duties) this.#startDuty(d);
  }

  #lose(why: string): void {
    this.#leading = false;
    this.#heldUntil = 0;
    this.#log.warn("this control plane no longer leads", { id: this.id, reason: why });
    for (const d of [...this.#duties].reverse()) {
      try {
        d.stop();
      } catch (e) {
        this.#log.error("a leader duty did not stop cleanly", { duty: d.name, error: e as Error });
      }
    }
  }

  #startDuty(d: LeaderDuty): void {
    Promise.resolve().then(() => d.start()).catch((e) =>
      this.#log.error("a leader duty did not start", { duty: d.name, error: e as Error })
    );
  }

  #schedule(): void {
    if (this.#stopped) return;
    const every = Math.max(50, Math.floor(this.deps.ttlMs() / 3));
    this.#timer = setTimeout(async () => {
      await this.tick();
      this.#schedule();
    }, every);
  }

  /** Tries and stops run one at a time, so a gain and a loss never interleave. */
  #serial(fn: () => Promise<void>): Promise<void> {
    const run = this.#turn.then(fn);
    this.#turn = run.catch(() => {});
    return run;
  }
}
