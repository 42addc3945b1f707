/**
 * Writes a batch of usage rows as one statement with one parameter: the rows as a JSON array,
 * unpacked by SQLite's `json_each`. Drizzle's multi-row insert builds its SQL a parameter at a
 * time, which for a batch of a few hundred 18-column rows cost 100–300 µs per row on the
 * request thread (libSQL runs on it), more than the rest of a request's own work.
 */
import { getTableColumns, sql } from "drizzle-orm";
import type { Tx } from "../../db/store.ts";
import { usage } from "../../db/schema.ts";

type Row = typeof usage.$inferInsert;

const columns = Object.entries(getTableColumns(usage));
/** Made once: the column list and, for each, how its value is read from a JSON row. */
const statementText = (() => {
  const names = columns.map(([, c]) => `"${c.name}"`).join(", ");
  const values = columns.map(([key, c]) => {
    const read = `value->>'$.${key}'`;
    // A column with a default takes it when the row leaves the field out (JSON drops undefined).
    // SQLite keeps a boolean as 0 or 1.
    if (typeof c.default === "boolean") return `coalesce(${read}, ${Number(c.default)})`;
    return typeof c.default === "number" ? `coalesce(${read}, ${c.default})` : read;
  }).join(", ");
  return { names, values };
})();

export async function insertUsageRows(tx: Tx, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.run(
    sql`INSERT INTO ${usage} (${sql.raw(statementText.names)}) SELECT ${
      sql.raw(statementText.values)
    } FROM json_each(${JSON.stringify(rows)})`,
  );
}
