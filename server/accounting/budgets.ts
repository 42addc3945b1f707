/**
 * Budget counters: one per scope and period, fed by every key beneath the scope, kept in memory
 * and written every few seconds. At start they are restored from the store: the persisted
 * counters and the usage rows since the period began, whichever is higher. Catching up only ever
 * raises a counter: the one in memory leads the store by what has not been written yet.
 */
import { and, gte, isNotNull, sql } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { apiKeys, budgetCounters, usage } from "../../db/schema.ts";
import type { Scope, Tenancy } from "../tenancy/tenancy.ts";

export type Period = "day" | "month";
export const periods: Period[] = ["day", "month"];

/** Periods run in UTC: a day from midnight, a month from the 1st. */
export function periodStart(period: Period, now: number): number {
  const d = new Date(now);
  return period === "day"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function periodEnd(period: Period, now: number): number {
  const d = new Date(now);
  return period === "day"
    ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
    : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

interface Counter {
  start: number;
  micros: number;
  tokens: number;
  dirty: boolean;
}

const keyOf = (s: Scope, p: Period) => `${s.kind}\u0000${s.id}\u0000${p}`;

export class BudgetBook {
  readonly #counters = new Map<string, Counter>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: { store: Store; clock: Clock; logger: Logger }) {}

  /** The current periods' bounds, computed once a day rather than on every request. */
  #bounds = { from: 0, to: 0, day: 0, month: 0 };
  #start(period: Period, now: number): number {
    const b = this.#bounds;
    if (now < b.from || now >= b.to) {
      this.#bounds = {
        from: periodStart("day", now),
        to: periodEnd("day", now),
        day: periodStart("day", now),
        month: periodStart("month", now),
      };
    }
    return this.#bounds[period];
  }

  #counter(scope: Scope, period: Period, now: number): Counter {
    const k = keyOf(scope, period);
    const start = this.#start(period, now);
    let c = this.#counters.get(k);
    if (!c || c.start !== start) {
      c = { start, micros: 0, tokens: 0, dirty: false };
      this.#counters.set(k, c);
    }
    return c;
  }

  spent(scope: Scope, period: Period): { micros: number; tokens: number } {
    const c = this.#counter(scope, period, this.deps.clock.now());
    return { micros: c.micros, tokens: c.tokens };
  }

  add(scopes: Scope[], micros: number, tokens: number): void {
    const now = this.deps.clock.now();
    for (const s of scopes) {
      for (const p of periods) {
        const c = this.#counter(s, p, now);
        c.micros += micros;
        c.tokens += tokens;
        c.dirty = true;
      }
    }
  }

  /** Lifts a counter to the value given when that is higher; never lowers one. */
  raise(scope: Scope, period: Period, start: number, micros: number, tokens: number): void {
    const c = this.#counter(scope, period, this.deps.clock.now());
    if (c.start !== start) return;
    if (micros > c.micros) (c.micros = micros), (c.dirty = true);
    if (tokens > c.tokens) (c.tokens = tokens), (c.dirty = true);
  }

  startFlushing(ms: number): void {
    this.#timer ??= setInterval(() => void this.flush(), ms);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }

  async flush(): Promise<void> {
    const rows: (typeof budgetCounters.$inferInsert)[] = [];
    const marked: Counter[] = [];
    for (const [k, c] of this.#counters) {
      if (!c.dirty) continue;
      const [scopeKind, scopeId, period] = k.split("\u0000") as [string, string, Period];
      rows.push({
        scopeKind,
        scopeId,
        period,
        periodStart: c.start,
        micros: c.micros,
        tokens: c.tokens,
      });
      c.dirty = false;
      marked.push(c);
    }
    if (rows.length === 0) return;
    try {
      await this.deps.store.write(async (tx) => {
        for (const row of rows) {
          await tx.insert(budgetCounters).values(row).onConflictDoUpdate({
            target: [budgetCounters.scopeKind, budgetCounters.scopeId, budgetCounters.period],
            set: { periodStart: row.periodStart, micros: row.micros, tokens: row.tokens },
          });
        }
      });
    } catch (e) {
      for (const c of marked) c.dirty = true;
      this.deps.logger.error("budget counters not written; will retry", { error: e });
    }
  }

  /**
   * Restores (raises) the counters of the current periods from the store: the persisted
   * counters, and the usage rows since each period began summed into every scope above their
   * key. The latter matters because a team's budget is one counter fed by all its keys: per-key
   * totals alone would bring the control plane back believing the team had spent nothing.
   */
  async catchUp(tenancy: Tenancy): Promise<void> {
    const now = this.deps.clock.now();
    for (const row of await this.deps.store.db.select().from(budgetCounters)) {
      this.raise(
        { kind: row.scopeKind as Scope["kind"], id: row.scopeId },
        row.period,
        row.periodStart,
        row.micros,
        row.tokens,
      );
    }
    const keyRows = await this.deps.store.db.select({
      id: apiKeys.id,
      userId: apiKeys.userId,
      projectId: apiKeys.projectId,
    }).from(apiKeys);
    const keys = new Map(keyRows.map((k) => [k.id, k]));
    for (const p of periods) {
      const start = periodStart(p, now);
      const sums = await this.deps.store.db.select({
        keyId: usage.keyId,
        micros: sql<number>`coalesce(sum(${usage.costMicros}), 0)`,
        tokens: sql<number>`coalesce(sum(${usage.promptTokens} + ${usage.completionTokens}), 0)`,
      }).from(usage).where(and(gte(usage.at, start), isNotNull(usage.keyId))).groupBy(usage.keyId);
      const totals = new Map<string, { scope: Scope; micros: number; tokens: number }>();
      for (const s of sums) {
        const key = keys.get(s.keyId!);
        if (!key) continue;
        for (const scope of tenancy.chain(key)) {
          const k = keyOf(scope, p);
          const t = totals.get(k) ?? { scope, micros: 0, tokens: 0 };
          t.micros += Number(s.micros);
          t.tokens += Number(s.tokens);
          totals.set(k, t);
        }
      }
      for (const t of totals.values()) this.raise(t.scope, p, start, t.micros, t.tokens);
    }
  }
}
