/**
 * Copies every table of one store into another, empty one (a single box's SQLite file into
 * the PostgreSQL a cluster will share): in one transaction on the target, parents before the
 * tables that refer to them, then each table's count compared on both sides, so the copy is
 * whole or not there at all.
 */
import { count, getTableColumns, is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../db/schema.ts";
import { type Store, StoreError } from "../../db/store.ts";

/** Rows per select and per insert: PostgreSQL takes at most 65,535 parameters a statement. */
const chunk = 1_000;

/** Every table of the schema, each after the tables its foreign keys point to. */
export function tablesInOrder(): SQLiteTable[] {
  const tables = (Object.values(schema) as unknown[]).filter((x): x is SQLiteTable =>
    is(x, SQLiteTable)
  );
  const done = new Set<SQLiteTable>();
  const out: SQLiteTable[] = [];
  const visit = (t: SQLiteTable) => {
    if (done.has(t)) return;
    done.add(t);
    for (const fk of getTableConfig(t).foreignKeys) {
      const parent = fk.reference().foreignTable as SQLiteTable;
      if (parent !== t) visit(parent);
    }
    out.push(t);
  };
  tables.forEach(visit);
  return out;
}

export async function copyStore(from: Store, to: Store): Promise<Record<string, number>> {
  const tables = tablesInOrder();
  for (const t of tables) {
    const [row] = await to.db.select({ n: count() }).from(t);
    if ((row?.n ?? 0) > 0) {
      throw new StoreError(
        `The target store ${to.path} is not empty (table ${getTableConfig(t).name} has rows): ` +
          `copy into a new, empty database.`,
      );
    }
  }
  const counts: Record<string, number> = {};
  await to.write(async (tx) => {
    for (const t of tables) {
      const name = getTableConfig(t).name;
      // A stable order to page by: the table's columns as declared (its key first in ours).
      const order = Object.values(getTableColumns(t));
      for (let offset = 0;; offset += chunk) {
        const rows = await from.db.select().from(t).orderBy(...order).limit(chunk).offset(offset);
        if (rows.length > 0) await tx.insert(t).values(rows);
        if (rows.length < chunk) break;
      }
      const [a] = await from.db.select({ n: count() }).from(t);
      const [b] = await tx.select({ n: count() }).from(t);
      if (a?.n !== b?.n) {
        throw new StoreError(
          `Copying ${name}: ${a?.n} rows in ${from.path}, ${b?.n} in ${to.path}`,
        );
      }
      counts[name] = b?.n ?? 0;
    }
  });
  return counts;
}
