/**
 * Usage for finance: sums over a span of UTC days, grouped by key, model or day (or project and
 * team, through `KeyOwners`), read from the per-day sums so a year answers at once.
 */
import { and, gte, lte, sql } from "drizzle-orm";
import type { Store } from "../../db/store.ts";
import { usageDaily } from "../../db/schema.ts";
import { AppError } from "../../core/errors.ts";
import { utcDay, zeroSums } from "./daily.ts";

export const usageGroupings = ["key", "model", "day", "project", "team"] as const;
export type UsageGrouping = (typeof usageGroupings)[number];

/**
 * Extension point for grouping by project or team: given key ids, where each key belongs. The
 * people/tenancy module provides it; without it those groupings are refused with a sentence.
 */
export interface KeyOwners {
  owners(keyIds: string[]): Promise<Map<string, { project?: string; team?: string }>>;
}

export interface UsageSummaryRow {
  /** The key id, model name, day, project or team; "" for requests without a key/owner. */
  group: string;
  requests: number;
  errors: number;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  costMicros: number;
}

export interface UsageSummary {
  since: string;
  until: string;
  by: UsageGrouping;
  rows: UsageSummaryRow[];
  total: Omit<UsageSummaryRow, "group">;
}

const dayRe = /^\d{4}-\d{2}-\d{2}$/;

/** `YYYY-MM-DD`, or an ISO time / Unix ms, taken as its UTC day. */
export function parseDay(v: string, param: string): string {
  if (dayRe.test(v) && !Number.isNaN(Date.parse(v + "T00:00:00Z"))) return v;
  const ms = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  if (Number.isNaN(ms)) {
    throw new AppError(
      "invalid_request",
      { detail: `${param}: expected a day (YYYY-MM-DD), got "${v}"` },
      param,
    );
  }
  return utcDay(ms);
}

export async function summarizeUsage(
  store: Store,
  q: { since: string; until: string; by: UsageGrouping },
  owners?: KeyOwners,
): Promise<UsageSummary> {
  if ((q.by === "project" || q.by === "team") && !owners) {
    throw new AppError(
      "invalid_request",
      { detail: `by: grouping by ${q.by} needs keys that belong to projects and teams` },
      "by",
    );
  }
  // Summed by the store: a year of a busy cluster is some 100,000 day sums.
  const column = q.by === "model"
    ? usageDaily.model
    : q.by === "day"
    ? usageDaily.day
    : usageDaily.keyId;
  const sums = await store.db.select({
    group: column,
    requests: sql<number>`sum(${usageDaily.requests})`,
    errors: sql<number>`sum(${usageDaily.errors})`,
    promptTokens: sql<number>`sum(${usageDaily.promptTokens})`,
    cachedTokens: sql<number>`sum(${usageDaily.cachedTokens})`,
    completionTokens: sql<number>`sum(${usageDaily.completionTokens})`,
    costMicros: sql<number>`sum(${usageDaily.costMicros})`,
  }).from(usageDaily).where(and(gte(usageDaily.day, q.since), lte(usageDaily.day, q.until)))
    .groupBy(column);
  let regroup: (keyId: string) => string = (g) => g;
  if (q.by === "project" || q.by === "team") {
    const map = await owners!.owners(sums.map((e) => e.group));
    const field = q.by;
    regroup = (keyId) => map.get(keyId)?.[field] ?? "";
  }
  const groups = new Map<string, UsageSummaryRow>();
  const total = zero("");
  for (const e of sums) {
    const g = regroup(e.group);
    let row = groups.get(g);
    if (!row) groups.set(g, row = zero(g));
    for (const s of [row, total]) {
      s.requests += Number(e.requests);
      s.errors += Number(e.errors);
      s.promptTokens += Number(e.promptTokens);
      s.cachedTokens += Number(e.cachedTokens);
      s.completionTokens += Number(e.completionTokens);
      s.costMicros += Number(e.costMicros);
    }
  }
  const rows = [...groups.values()].sort((a, b) =>
    q.by === "day" ? a.group.localeCompare(b.group) : b.costMicros - a.costMicros ||
      b.requests - a.requests || a.group.localeCompare(b.group)
  );
  const { group: _g, ...totals } = total;
  return { since: q.since, until: q.until, by: q.by, rows, total: totals };
}

function zero(group: string): UsageSummaryRow {
  return { group, ...zeroSums() };
}
