/**
 * db/schema.ts (SQLite) and db/schema_pg.ts (PostgreSQL) describe one store: the same tables,
 * and in each the same columns (property and column names, types as mapped, nullability,
 * defaults, uniqueness), primary and foreign keys and indexes. The query code builds with the
 * SQLite tables on both dialects, so a column that differs here is a bug there.
 */
import { getTableColumns, is, sql } from "drizzle-orm";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { assertEquals } from "../tests/assert.ts";
import { freshDatabase, postgresMissing } from "../tests/helpers/postgres.ts";
import { skipNote } from "../tests/helpers/skip.ts";
import { openStore } from "./store.ts";
import * as pg from "./schema_pg.ts";
import * as sqlite from "./schema.ts";

/** How each SQLite column type is kept in PostgreSQL. */
const typeMap: Record<string, string> = {
  SQLiteText: "PgText",
  SQLiteTextJson: "PgText",
  SQLiteInteger: "PgBigInt53",
  SQLiteBoolean: "PgBoolean",
  // bytea is a custom column in Drizzle's pg-core; its SQL type is checked against the live server.
  SQLiteBlobBuffer: "PgCustomColumn",
};

type AnyColumn = {
  name: string;
  columnType: string;
  notNull: boolean;
  primary: boolean;
  isUnique: boolean;
  hasDefault: boolean;
  default: unknown;
  enumValues?: readonly string[] | undefined;
};

/** A default as a value: PostgreSQL's JSON text defaults are SQL literals (`'[]'`). */
function defaultOf(c: AnyColumn): unknown {
  const d = c.default as { queryChunks?: { value?: string[] }[] } | undefined;
  const literal = d?.queryChunks?.[0]?.value?.[0];
  if (typeof literal === "string") return JSON.parse(literal.replace(/^'|'$/g, ""));
  return d;
}

function describeColumns(cols: Record<string, AnyColumn>, sqliteSide: boolean) {
  return Object.fromEntries(
    Object.entries(cols).map(([key, c]) => [key, {
      name: c.name,
      type: sqliteSide ? typeMap[c.columnType] ?? `unmapped ${c.columnType}` : c.columnType,
      notNull: c.notNull,
      primary: c.primary,
      unique: c.isUnique,
      hasDefault: c.hasDefault,
      default: defaultOf(c),
      enum: c.enumValues ?? null,
    }]),
  );
}

function describe(t: SQLiteTable | PgTable) {
  const sqliteSide = is(t, SQLiteTable);
  const config = sqliteSide ? sqliteConfig(t as SQLiteTable) : pgConfig(t as PgTable);
  return {
    name: config.name,
    columns: describeColumns(getTableColumns(t) as Record<string, AnyColumn>, sqliteSide),
    primaryKeys: config.primaryKeys.map((pk) => pk.columns.map((c) => c.name)),
    foreignKeys: config.foreignKeys.map((fk) => {
      const ref = fk.reference();
      return {
        columns: ref.columns.map((c) => c.name),
        table: (sqliteSide ? sqliteConfig(ref.foreignTable as SQLiteTable) : pgConfig(
          ref.foreignTable as PgTable,
        )).name,
        foreignColumns: ref.foreignColumns.map((c) => c.name),
        onDelete: fk.onDelete ?? "no action",
      };
    }).sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
    indexes: config.indexes.map((i) => ({
      name: i.config.name ?? "",
      unique: i.config.unique,
      columns: i.config.columns.map((c) => (c as { name: string }).name),
    })).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

function tables<T>(mod: Record<string, unknown>, kind: new (...a: never[]) => T) {
  return Object.fromEntries(
    Object.entries(mod).filter(([, v]) => is(v, kind as never)) as [string, T][],
  );
}

Deno.test("the SQLite and PostgreSQL schemas agree table for table and column for column", () => {
  const lite = tables(sqlite, SQLiteTable);
  const post = tables(pg, PgTable);
  assertEquals(Object.keys(post).sort(), Object.keys(lite).sort());
  assertEquals(Object.keys(lite).length > 10, true);
  for (const [name, table] of Object.entries(lite)) {
    assertEquals(describe(post[name]!), describe(table), name);
  }
});

Deno.test({
  name: `PostgreSQL's migrations build exactly the tables of schema_pg.ts${
    skipNote(postgresMissing)
  }`,
  ignore: !!postgresMissing,
  fn: async () => {
    const store = await openStore(await freshDatabase());
    try {
      const live = await store.all<
        { table: string; column: string; type: string; nullable: string }
      >({
        sqlite: sql`SELECT 1`,
        postgres: sql`SELECT table_name AS "table", column_name AS "column",
          data_type AS "type", is_nullable AS nullable
          FROM information_schema.columns WHERE table_schema = 'public'`,
      });
      const key = (t: string, c: string) => `${t}.${c}`;
      const got = Object.fromEntries(
        live.map((r) => [key(r.table, r.column), `${r.type} ${r.nullable === "NO"}`]),
      );
      const want: Record<string, string> = {};
      for (const t of Object.values(tables(pg, PgTable))) {
        for (const c of Object.values(getTableColumns(t))) {
          want[key(pgConfig(t).name, c.name)] = `${c.getSQLType()} ${c.notNull}`;
        }
      }
      assertEquals(got, want);
    } finally {
      await store.close();
    }
  },
});
