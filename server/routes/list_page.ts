/**
 * OpenAI's list envelope (`object: "list"`, first and last ids, `has_more`) and its `limit` query,
 * shared by files, batches and a response's input items so the three pages read alike.
 */

/** `limit` from the query: a whole number within 1..max, else the fallback. */
export function pageLimit(raw: string | undefined, fallback: number, max: number): number {
  return Math.min(Math.max(Number(raw ?? fallback) || fallback, 1), max);
}

export function listPage<T extends { id?: unknown }>(data: T[], hasMore: boolean) {
  return {
    object: "list" as const,
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: hasMore,
  };
}
