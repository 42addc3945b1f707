/**
 * Per-day sums of usage, kept beside the raw rows: each batch the recorder writes adds its rows'
 * sums in the same transaction (so the two never disagree), and a store that has rows but no sums
 * (made before the sums existed) is summed once at start.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Store, Tx } from "../../db/store.ts";
import { usage, usageDaily } from "../../db/schema.ts";

type Row = typeof usage.$inferInsert;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The counters a daily entry (and a summary row made from entries) starts from. */
export function zeroSums() {
  return {
    requests: 0,
    errors: 0,
    promptTokens: 0,
    cachedTokens: 0,
    completionTokens: 0,
    costMicros: 0,
  };
}

/** Adds the rows' sums to their (day, key, model) entries. */
export async function addToDaily(tx: Tx, rows: readonly Row[]): Promise<void> {
  const sums = new Map<string, typeof usageDaily.$inferInsert>();
  for (const r of rows) {
    const day = utcDay(r.at);
    const keyId = r.keyId ?? "";
    const id = `${day}\u0000${keyId}\u0000${r.model}`;
    let s = sums.get(id);
    if (!s) {
      s = { day, keyId, model: r.model, ...zeroSums() };
      sums.set(id, s);
    }
    s.requests++;
    if (r.status >= 400) s.errors++;
    s.promptTokens += r.promptTokens;
    s.cachedTokens += r.cachedTokens ?? 0;
    s.completionTokens += r.completionTokens;
    s.costMicros += r.costMicros ?? 0;
  }
  if (sums.size === 0) return;
  await tx.insert(usageDaily).values([...sums.values()]).onConflictDoUpdate({
    target: [usageDaily.day, usageDaily.keyId, usageDaily.model],
    set: {
      requests: sql`${usageDaily.requests} + excluded.requests`,
      errors: sql`${usageDaily.errors} + excluded.errors`,
      promptTokens: sql`${usageDaily.promptTokens} + excluded.prompt_tokens`,
      cachedTokens: sql`${usageDaily.cachedTokens} + excluded.cached_tokens`,
      completionTokens: sql`${usageDaily.completionTokens} + excluded.completion_tokens`,
      costMicros: sql`${usageDaily.costMicros} + excluded.cost_micros`,
    },
  });
}

/** Sums rows written before the daily table existed; does nothing once it has any entry. */
export async function backfillDaily(store: Store): Promise<number> {
  return await store.write(async (tx) => {
    const has = await tx.select({ n: sql<number>`count(*)` }).from(usageDaily).limit(1);
    if ((has[0]?.n ?? 0) > 0) return 0;
    const select = (day: SQL) =>
      sql`INSERT INTO usage_daily (day, key_id, model, requests, errors, prompt_tokens,
        cached_tokens, completion_tokens, cost_micros)
      SELECT ${day}, coalesce(key_id, ''), model, count(*),
        sum(CASE WHEN status >= 400 THEN 1 ELSE 0 END), sum(prompt_tokens), sum(cached_tokens),
        sum(completion_tokens), sum(cost_micros)
      FROM usage GROUP BY 1, 2, 3`;
    return await store.run({
      sqlite: select(sql`strftime('%Y-%m-%d', at / 1000, 'unixepoch')`),
      postgres: select(sql`to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`),
    }, tx);
  });
}

/** Deletes raw usage rows older than `retainDays` (0 keeps them all); the sums stay. */
export async function pruneUsage(store: Store, now: number, retainDays: number): Promise<number> {
  if (retainDays <= 0) return 0;
  // Whole days only: a day's raw rows go together, after the day has ended in UTC.
  const cutoff = Date.parse(utcDay(now - retainDays * 86_400_000) + "T00:00:00Z");
  const q = sql`DELETE FROM usage WHERE at < ${cutoff}`;
  return await store.write((tx) => store.run({ sqlite: q, postgres: q }, tx));
}
