/**
 * The store: the embedded SQLite file (libSQL) for one box, or PostgreSQL for a cluster, with
 * Drizzle on top and one set of query code for both. There is exactly one write path (`write`):
 * transactions from this process run one after another, so writers never fight over a lock
 * inside it; reads use a pool of their own.
 *
 * Both dialects are driven through the SQLite tables of db/schema.ts: Drizzle's query builders
 * have the same surface in both, the tables only lend names and value mappings, and
 * db/schema_pg.ts (checked column for column against schema.ts) stores each value as SQLite
 * hands it over. So `db` and `Tx` are typed as SQLite's at this seam. What the builders cannot
 * say goes through `run`/`all` with each dialect's SQL side by side.
 */
import type { SQL } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type * as schema from "./schema.ts";

export type Db = LibSQLDatabase<typeof schema>;
/** What a write callback gets: a transaction with the same query surface as the database. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type Dialect = "sqlite" | "postgres";

/** One statement in each dialect's words, for what the query builder cannot say in both. */
export interface DialectSql {
  sqlite: SQL;
  postgres: SQL;
}

export class StoreError extends Error {
  override name = "StoreError";
}

export interface Store {
  readonly dialect: Dialect;
  /** Where the store is, for messages: the file, or the URL without its password. */
  readonly path: string;
  /** For reads. Never write through it: use `write`. */
  readonly db: Db;
  /** Runs `fn` in a write transaction, after every write queued before it. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs a statement in this store's dialect inside a `write`'s `tx`; the rows it changed. */
  run(q: DialectSql, tx: Tx): Promise<number>;
  /** The rows a query in this store's dialect returns (inside `tx` when given). */
  all<T>(q: DialectSql, tx?: Tx): Promise<T[]>;
  /** PostgreSQL's LISTEN/NOTIFY; absent on SQLite, which has no notifications between processes. */
  readonly notifications?: StoreNotifications;
  close(): Promise<void>;
}

/** Messages between the processes sharing a store, delivered once the sending write commits. */
export interface StoreNotifications {
  /** Sends `payload` on `channel` when `tx` commits (nothing is sent if it rolls back). */
  notify(channel: string, payload: string, tx: Tx): Promise<void>;
  /**
   * Runs `fn` for each payload on `channel`. `onListen` runs each time the listening connection
   * is (re)established, so a caller can catch up on what was sent while it was away.
   */
  listen(
    channel: string,
    fn: (payload: string) => void,
    onListen: () => void,
  ): Promise<{ unlisten(): Promise<void> }>;
}

/** True for a `store.url` that names PostgreSQL. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Opens the store and applies pending migrations: a PostgreSQL URL, else a SQLite file path
 * (created if needed) or `:memory:`.
 */
export async function openStore(where: string): Promise<Store> {
  if (isPostgresUrl(where)) {
    const { openPgStore } = await import("./pg_store.ts");
    return await openPgStore(where);
  }
  const { openSqliteStore } = await import("./sqlite_store.ts");
  return await openSqliteStore(where);
}

/** Serialises `fn`s one after another, as the one write path promises; a failure breaks no chain. */
export function writeQueue(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>) => {
    const run = tail.then(fn);
    tail = run.catch(() => {});
    return run;
  };
}

export function causeChain(e: unknown): string[] {
  const out: string[] = [];
  for (let cur = e, depth = 0; cur && depth < 8; depth++) {
    if (cur instanceof Error) {
      out.push(`${(cur as { code?: string }).code ?? ""} ${cur.message}`);
      cur = cur.cause;
    } else {
      out.push(String(cur));
      break;
    }
  }
  return out;
}
