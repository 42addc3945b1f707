/**
 * Writes a batch of usage rows as one statement with one parameter: the rows as a JSON array,
 * unpacked by the store itself (SQLite's `json_each`, PostgreSQL's `json_array_elements`).
 * Drizzle's multi-row insert builds its SQL a parameter at a time, which for a batch of a few
 * hundred 18-column rows cost 100–300 µs per row on the request thread (libSQL runs on it),
 * more than the rest of a request's own work.
 */
import { getTableColumns, sql } from "drizzle-orm";
import type { Store, Tx } from "../../db/store.ts";
import { usage } from "../../db/schema.ts";
import { usage as usagePg } from "../../db/schema_pg.ts";

type Row = typeof usage.$inferInsert;

const columns = Object.entries(getTableColumns(usage));
const pgColumns = getTableColumns(usagePg);
/** Made once: the column list and, for each dialect, how each value is read from a JSON row. */
const statementText = (() => {
  const names = columns.map(([, c]) => `"${c.name}"`).join(", ");
  // A column with a default takes it when the row leaves the field out (JSON drops undefined).
  // SQLite keeps a boolean as 0 or 1; PostgreSQL as a boolean.
  const orDefault = (read: string, d: unknown, booleanAs: (b: boolean) => string) => {
    if (typeof d === "boolean") return `coalesce(${read}, ${booleanAs(d)})`;
    return typeof d === "number" ? `coalesce(${read}, ${d})` : read;
  };
  const sqlite = columns.map(([key, c]) =>
    orDefault(`value->>'$.${key}'`, c.default, (b) => String(Number(b)))
  ).join(", ");
  // PostgreSQL reads JSON fields as text: each is cast to its column's type.
  const postgres = columns.map(([key, c]) => {
    const type = pgColumns[key as keyof typeof pgColumns].getSQLType();
    return orDefault(`(value->>'${key}')::${type}`, c.default, String);
  }).join(", ");
  return { names, sqlite, postgres };
})();

export async function insertUsageRows(store: Store, tx: Tx, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows);
  const into = sql`INSERT INTO ${usage} (${sql.raw(statementText.names)})`;
  await store.run({
    sqlite: sql`${into} SELECT ${sql.raw(statementText.sqlite)} FROM json_each(${json})`,
    postgres: sql`${into} SELECT ${
      sql.raw(statementText.postgres)
    } FROM json_array_elements(${json}::json) AS r(value)`,
  }, tx);
}
