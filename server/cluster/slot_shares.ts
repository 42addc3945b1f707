/**
 * A replica's slots shared out among the control planes that route to it, so three routers never
 * admit three times its slots. Every interval (2 s) each control plane writes what it wants of
 * each replica (in flight there, and its share of the model's queue). The leader then reads
 * every control plane's demand, shares each replica's slots out by one rule (while the replica
 * has slots for everyone's demand, each gets its demand and the spare is dealt out in turn; past
 * that, slots go in proportion to demand, largest remainders first) and writes each its grant;
 * the others take the grant the leader last wrote them. One reckoning from one reading, so the
 * grants of one round add up to the replica's slots, which control planes each computing from
 * rows read a moment apart cannot promise.
 *
 * Where no fresh grant is there (no leader for a while, a leader of an older version), each
 * control plane computes its own share by the same rule from the rows it reads: the net, which
 * may disagree by a slot for one interval. A control plane that hears of no other keeps all the
 * slots, as on one box.
 *
 * Plain Drizzle upserts, updates and selects: the same on SQLite and PostgreSQL.
 */
import { and, eq, gte } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { slotDemand } from "../../db/schema.ts";
import type { Replica, ReplicaTable } from "../router/replicas.ts";
import { alone, type Peers } from "../control/peers.ts";

export interface SlotSharesOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  replicas: ReplicaTable;
  /** Requests queued for a model here (the router's queue). */
  waiting: (model: string) => number;
  plane: string;
  intervalMs: number;
  /** Whether this control plane leads now: the leader writes everyone's grants. */
  leads: () => boolean;
  /** Alone, every replica's slots are this control plane's: nothing goes through the store. */
  peers?: Peers;
}

/** Each plane's part of `slots` for the demands given; planes in a stable order. */
export function shareOut(slots: number, demands: Map<string, number>): Map<string, number> {
  const planes = [...demands.keys()].sort();
  const total = planes.reduce((n, p) => n + demands.get(p)!, 0);
  const out = new Map(planes.map((p) => [p, 0]));
  if (total <= slots) {
    for (const p of planes) out.set(p, demands.get(p)!);
    for (let spare = slots - total, i = 0; spare > 0; spare--, i++) {
      const p = planes[i % planes.length]!;
      out.set(p, out.get(p)! + 1);
    }
    return out;
  }
  const quota = planes.map((p) => ({ p, q: (slots * demands.get(p)!) / total }));
  let left = slots;
  for (const { p, q } of quota) out.set(p, Math.floor(q)), left -= Math.floor(q);
  const byRemainder = [...quota].sort((a, b) =>
    (b.q - Math.floor(b.q)) - (a.q - Math.floor(a.q)) || (a.p < b.p ? -1 : 1)
  );
  for (const { p } of byRemainder) {
    if (left-- <= 0) break;
    out.set(p, out.get(p)! + 1);
  }
  return out;
}

export class SlotShares {
  #timer: ReturnType<typeof setInterval> | undefined;
  #running: Promise<void> | undefined;

  constructor(private readonly o: SlotSharesOptions) {
    o.peers?.onJoined(() => void this.tick());
  }

  /** This control plane's name in the demand rows. */
  get plane(): string {
    return this.o.plane;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), this.o.intervalMs);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One rebalance; one still running when the next is due is not doubled. */
  tick(): Promise<void> {
    if (alone(this.o.peers) && !this.#running) return Promise.resolve(this.#solo());
    this.#running ??= this.#rebalance().catch((e) => {
      this.o.logger.warn("slot shares not exchanged; will retry", { error: e });
    }).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Every slot back to this control plane, as when it hears of no other. */
  #solo(): void {
    const grown = new Set<string>();
    for (const r of this.o.replicas.list()) {
      if (r.share === undefined) continue;
      if (r.slots > r.share) grown.add(r.model);
      delete r.share;
    }
    for (const model of grown) this.o.replicas.onRoom(model);
  }

  #demand(r: Replica): number {
    const siblings = this.o.replicas.forModel(r.model).filter((x) => !x.external).length;
    return r.inFlight + Math.ceil(this.o.waiting(r.model) / Math.max(1, siblings));
  }

  async #rebalance(): Promise<void> {
    const { store, clock, replicas, plane, intervalMs } = this.o;
    const now = clock.now();
    const fresh = now - 3 * intervalMs;
    const mine = replicas.list().filter((r) => !r.external);
    const rows = mine.map((r) => ({
      plane,
      replicaId: r.id,
      demand: this.#demand(r),
      reportedAt: now,
    }));
    if (rows.length) {
      await store.write(async (tx) => {
        for (const row of rows) {
          await tx.insert(slotDemand).values(row).onConflictDoUpdate({
            target: [slotDemand.plane, slotDemand.replicaId],
            set: { demand: row.demand, reportedAt: row.reportedAt },
          });
        }
      });
    }
    if (this.o.leads()) await this.#grant(fresh, now);
    const rowsNow = await store.db.select().from(slotDemand).where(
      gte(slotDemand.reportedAt, fresh),
    );
    const byReplica = new Map<string, Map<string, number>>();
    const granted = new Map<string, number>();
    for (const row of rowsNow) {
      if (row.plane === plane) {
        if (row.granted !== null && (row.grantedAt ?? 0) >= fresh) {
          granted.set(row.replicaId, row.granted);
        }
        continue;
      }
      let m = byReplica.get(row.replicaId);
      if (!m) byReplica.set(row.replicaId, m = new Map());
      m.set(row.plane, row.demand);
    }
    const grown = new Set<string>();
    for (const [i, r] of mine.entries()) {
      const theirs = byReplica.get(r.id);
      const before = r.share ?? r.slots;
      if (!theirs || !Number.isFinite(r.slots)) {
        delete r.share;
      } else if (granted.has(r.id)) {
        r.share = granted.get(r.id)!;
      } else {
        // No grant from a leader lately: the same rule, reckoned here.
        theirs.set(plane, rows[i]!.demand);
        r.share = shareOut(r.slots, theirs).get(plane) ?? 0;
      }
      if ((r.share ?? r.slots) > before) grown.add(r.model);
    }
    for (const model of grown) replicas.onRoom(model);
  }

  /**
   * The leader's round: every replica's slots shared out over the demand every control plane
   * reported lately, each row's grant written in one transaction. A replica the leader does not
   * know (no slots to share) gets no grant; those routing to it reckon their own.
   */
  async #grant(fresh: number, now: number): Promise<void> {
    const { store, replicas } = this.o;
    const rows = await store.db.select().from(slotDemand).where(gte(slotDemand.reportedAt, fresh));
    const byReplica = new Map<string, Map<string, number>>();
    for (const row of rows) {
      let m = byReplica.get(row.replicaId);
      if (!m) byReplica.set(row.replicaId, m = new Map());
      m.set(row.plane, row.demand);
    }
    const grants: { plane: string; replicaId: string; granted: number }[] = [];
    for (const [replicaId, demands] of byReplica) {
      const slots = replicas.get(replicaId)?.slots;
      if (slots === undefined || !Number.isFinite(slots)) continue;
      for (const [plane, granted] of shareOut(slots, demands)) {
        grants.push({ plane, replicaId, granted });
      }
    }
    if (grants.length === 0) return;
    await store.write(async (tx) => {
      for (const g of grants) {
        await tx.update(slotDemand).set({ granted: g.granted, grantedAt: now })
          .where(and(eq(slotDemand.plane, g.plane), eq(slotDemand.replicaId, g.replicaId)));
      }
    });
  }
}
