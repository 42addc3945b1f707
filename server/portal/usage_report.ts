/**
 * Usage for the portal: per day for the last 30 days (days in the person's time zone), by model
 * and by key, for the keys the person may read; and the budgets at each level above them.
 */
import { and, gte, inArray, sql } from "drizzle-orm";
import { usage } from "../../db/schema.ts";
import { type Period, periods } from "../accounting/budgets.ts";
import type { PortalDeps } from "./portal_deps.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Person, Scope } from "../tenancy/tenancy.ts";

export const days = 30;
const dayMs = 86_400_000;

export interface Totals {
  requests: number;
  tokens: number;
  micros: number;
}
export interface DayRow extends Totals {
  /** Midnight of the day (in the person's zone), as epoch ms. */
  day: number;
}
export interface UsageReport {
  daily: DayRow[];
  byModel: (Totals & { model: string })[];
  byKey: (Totals & { keyId: string; name: string | null })[];
  /** Every (day, model, key) cell, for the CSV. */
  cells:
    (Totals & { day: number; model: string; keyId: string; prompt: number; completion: number })[];
}

/** The zone's offset from UTC at `at`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(at);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute"), n("second"));
  return local - Math.floor(at / 1000) * 1000;
}

export async function usageReport(
  deps: Pick<PortalDeps, "store">,
  keys: ApiKeyInfo[],
  timeZone: string,
  now: number,
): Promise<UsageReport> {
  const offset = zoneOffsetMs(timeZone, now);
  const today = Math.floor((now + offset) / dayMs) * dayMs - offset;
  const since = today - (days - 1) * dayMs;
  const daily: DayRow[] = Array.from({ length: days }, (_, i) => ({
    day: since + i * dayMs,
    requests: 0,
    tokens: 0,
    micros: 0,
  }));
  const report: UsageReport = { daily, byModel: [], byKey: [], cells: [] };
  if (keys.length === 0) return report;
  // Whole numbers written into the SQL (ours, not input), so SQLite divides as integers and the
  // GROUP BY repeats the same expression.
  const dayExpr = sql<number>`cast((${usage.at} + ${sql.raw(String(Math.trunc(offset)))}) / ${
    sql.raw(String(dayMs))
  } as integer)`;
  const rows = await deps.store.db.select({
    day: dayExpr,
    model: usage.model,
    keyId: usage.keyId,
    requests: sql<number>`count(*)`,
    prompt: sql<number>`sum(${usage.promptTokens})`,
    completion: sql<number>`sum(${usage.completionTokens})`,
    micros: sql<number>`sum(${usage.costMicros})`,
  }).from(usage).where(and(
    gte(usage.at, since),
    inArray(usage.keyId, keys.map((k) => k.id)),
  )).groupBy(dayExpr, usage.model, usage.keyId);
  const models = new Map<string, Totals & { model: string }>();
  const byKey = new Map<string, Totals & { keyId: string; name: string | null }>();
  const names = new Map(keys.map((k) => [k.id, k.name]));
  for (const r of rows) {
    const day = Number(r.day) * dayMs - offset;
    const t = {
      requests: Number(r.requests),
      tokens: Number(r.prompt) + Number(r.completion),
      micros: Number(r.micros),
    };
    const slot = daily[Math.round((day - since) / dayMs)];
    if (slot) add(slot, t);
    const keyId = r.keyId ?? "";
    add(getOr(models, r.model, () => ({ model: r.model, ...zero() })), t);
    add(getOr(byKey, keyId, () => ({ keyId, name: names.get(keyId) ?? null, ...zero() })), t);
    report.cells.push({
      day,
      model: r.model,
      keyId,
      prompt: Number(r.prompt),
      completion: Number(r.completion),
      ...t,
    });
  }
  report.byModel = [...models.values()].sort((a, b) => b.requests - a.requests);
  report.byKey = [...byKey.values()].sort((a, b) => b.requests - a.requests);
  report.cells.sort((a, b) => a.day - b.day || a.model.localeCompare(b.model));
  return report;
}

function zero(): Totals {
  return { requests: 0, tokens: 0, micros: 0 };
}
function add(to: Totals, t: Totals): void {
  to.requests += t.requests;
  to.tokens += t.tokens;
  to.micros += t.micros;
}
function getOr<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (!v) m.set(k, v = make());
  return v;
}

export interface BudgetLine {
  scope: Scope;
  period: Period;
  unit: "micros" | "tokens";
  budget: number;
  spent: number;
}

/** The budgets set at each level above the person (and their own), with what is spent. */
export function budgetLines(deps: Pick<PortalDeps, "people">, person: Person): BudgetLine[] {
  const { tenancy, limits, budgets } = deps.people;
  const chain = tenancy.chain({ id: "", userId: person.id, projectId: null })
    .filter((s) => s.kind !== "global" && s.kind !== "key");
  const out: BudgetLine[] = [];
  for (const scope of chain) {
    const own = limits.own(scope);
    if (!own) continue;
    for (const period of periods) {
      const spent = budgets.spent(scope, period);
      const micros = period === "day" ? own.budgetDayMicros : own.budgetMonthMicros;
      const tokens = period === "day" ? own.budgetDayTokens : own.budgetMonthTokens;
      if (micros !== null) {
        out.push({ scope, period, unit: "micros", budget: micros, spent: spent.micros });
      }
      if (tokens !== null) {
        out.push({ scope, period, unit: "tokens", budget: tokens, spent: spent.tokens });
      }
    }
  }
  return out;
}
