/**
 * Budgets across control planes without the store on the request path: each control plane leases
 * a slice of a budget's remainder (one atomic update of the budget's `committed` in the store),
 * then reserves and spends against the slice in memory. It asks for more off the request path
 * when a slice runs low, and a request waits on the store only when its slice cannot hold it.
 * Since the store never commits past the budget and a request only runs within a slice, the
 * cluster overshoots a budget by no more than one request's reservation falls short of its cost
 * (as on one box). A control plane gives back what it did not spend when it stops; one that dies
 * leaves its unspent slice committed until the period ends (never more than one slice each).
 *
 * The SQL is Drizzle's insert, update and `CASE`: the same on SQLite and PostgreSQL.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { budgetSlices } from "../../db/schema.ts";
import { type Period, periodStart } from "../accounting/budgets.ts";
import type { Scope } from "../tenancy/tenancy.ts";

export type Unit = "micros" | "tokens";

/** One budget a request needs room in: the level, the period, the unit and the budget's max. */
export interface SliceNeed {
  scope: Scope;
  period: Period;
  unit: Unit;
  max: number;
  /** What the request needs on top of what is held there already. */
  need: number;
  /** What this control plane knew was spent there when the budget's row was first written. */
  spent: number;
}

interface Slice {
  start: number;
  granted: number;
  spent: number;
  leasing: Promise<void> | undefined;
  /** After a lease granted nothing (the budget is all committed): no store asks before this. */
  dryUntil: number;
}

/** How long a spent-out budget is not asked again, so refused requests do not each write. */
const dryMs = 1_000;

export interface BudgetSlicesOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** What a slice asks for beyond the need, as a share of the budget (a tenth by default). */
  sliceShare?: number;
}

const keyOf = (s: Scope, p: Period, u: Unit) => `${s.kind}\u0000${s.id}\u0000${p}\u0000${u}`;

export class BudgetSlices {
  readonly #slices = new Map<string, Slice>();

  constructor(private readonly o: BudgetSlicesOptions) {}

  #slice(scope: Scope, period: Period, unit: Unit): Slice {
    const k = keyOf(scope, period, unit);
    const start = periodStart(period, this.o.clock.now());
    let s = this.#slices.get(k);
    if (!s || s.start !== start) {
      s = { start, granted: 0, spent: 0, leasing: undefined, dryUntil: 0 };
      this.#slices.set(k, s);
    }
    return s;
  }

  /** What this control plane may still reserve there: its slice less what it spent of it. */
  room(scope: Scope, period: Period, unit: Unit): number {
    const s = this.#slice(scope, period, unit);
    return s.granted - s.spent;
  }

  /** A settled request's cost, spent from the slices of every level it ran under. */
  charge(scopes: Scope[], micros: number, tokens: number): void {
    for (const scope of scopes) {
      for (const period of ["day", "month"] as Period[]) {
        for (const [unit, n] of [["micros", micros], ["tokens", tokens]] as const) {
          const s = this.#slices.get(keyOf(scope, period, unit));
          if (s && s.start === periodStart(period, this.o.clock.now())) s.spent += n;
        }
      }
    }
  }

  /**
   * Leases more of each budget named (what the need lacks plus a share of the budget), one store
   * update each; leases already under way for a budget are waited on rather than doubled.
   */
  async lease(needs: SliceNeed[]): Promise<void> {
    await Promise.all(needs.map((n) => this.#leaseOne(n)));
  }

  /** Off the request path: a slice left with less than a quarter of a share asks for more. */
  refill(needs: SliceNeed[]): void {
    const low = needs.filter((n) =>
      this.room(n.scope, n.period, n.unit) - n.need < this.#share(n.max) / 4
    );
    if (low.length) void this.lease(low.map((n) => ({ ...n, need: 0 })));
  }

  #share(max: number): number {
    return Math.ceil(max * (this.o.sliceShare ?? 0.1));
  }

  #leaseOne(n: SliceNeed): Promise<void> {
    const s = this.#slice(n.scope, n.period, n.unit);
    if (this.o.clock.now() < s.dryUntil) return Promise.resolve();
    s.leasing ??= this.#grant(n, s).catch((e) => {
      this.o.logger.warn("budget slice not leased; requests wait for the next try", { error: e });
    }).finally(() => {
      s.leasing = undefined;
    });
    return s.leasing;
  }

  async #grant(n: SliceNeed, s: Slice): Promise<void> {
    const short = Math.max(0, n.need - (s.granted - s.spent));
    const want = Math.min(n.max, short + this.#share(n.max));
    const where = this.#where(n.scope, n.period, s.start, n.unit);
    const c = budgetSlices.committed;
    const grant = await this.o.store.write(async (tx) => {
      await tx.insert(budgetSlices).values({
        scopeKind: n.scope.kind,
        scopeId: n.scope.id,
        period: n.period,
        periodStart: s.start,
        unit: n.unit,
        committed: Math.min(n.max, Math.max(0, Math.ceil(n.spent))),
        lastGrant: 0,
      }).onConflictDoNothing();
      // Both right-hand sides read the row as it was: the grant is what fits under the max.
      const [row] = await tx.update(budgetSlices).set({
        committed: sql`CASE WHEN ${c} + ${want} <= ${n.max} THEN ${c} + ${want}
          WHEN ${c} < ${n.max} THEN ${n.max} ELSE ${c} END`,
        lastGrant: sql`CASE WHEN ${c} + ${want} <= ${n.max} THEN ${want}
          WHEN ${c} < ${n.max} THEN ${n.max} - ${c} ELSE 0 END`,
      }).where(where).returning({ grant: budgetSlices.lastGrant });
      return Number(row?.grant ?? 0);
    });
    s.granted += grant;
    if (grant === 0) s.dryUntil = this.o.clock.now() + dryMs;
  }

  /** When this control plane stops: what its slices hold unspent goes back to the budgets. */
  async giveBack(): Promise<void> {
    const now = this.o.clock.now();
    const back: { scope: Scope; period: Period; unit: Unit; start: number; n: number }[] = [];
    for (const [k, s] of this.#slices) {
      const left = Math.floor(s.granted - s.spent);
      const [kind, id, period, unit] = k.split("\u0000") as [Scope["kind"], string, Period, Unit];
      if (left <= 0 || s.start !== periodStart(period, now)) continue;
      back.push({ scope: { kind, id }, period, unit, start: s.start, n: left });
      s.granted -= left;
    }
    if (!back.length) return;
    const c = budgetSlices.committed;
    await this.o.store.write(async (tx) => {
      for (const b of back) {
        await tx.update(budgetSlices).set({ committed: sql`${c} - ${b.n}` })
          .where(this.#where(b.scope, b.period, b.start, b.unit));
      }
    }).catch((e) => {
      this.o.logger.warn("unspent budget slices not given back", { error: e });
    });
  }

  #where(scope: Scope, period: Period, start: number, unit: Unit) {
    return and(
      eq(budgetSlices.scopeKind, scope.kind),
      eq(budgetSlices.scopeId, scope.id),
      eq(budgetSlices.period, period),
      eq(budgetSlices.periodStart, start),
      eq(budgetSlices.unit, unit),
    );
  }
}
