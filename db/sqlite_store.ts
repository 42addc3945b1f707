/**
 * The embedded store: one SQLite file through libSQL. Writes go through a single connection
 * (WAL, so readers never wait on them); reads use a small pool of their own.
 */
import { type Client, createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "./schema.ts";
import {
  causeChain,
  type Db,
  type DialectSql,
  type Store,
  StoreError,
  writeQueue,
} from "./store.ts";

const busyTimeoutMs = 5_000;
const migrationsFolder = new URL("./migrations", import.meta.url).pathname;

export async function openSqliteStore(path: string): Promise<Store> {
  const url = path === ":memory:" ? ":memory:" : `file:${path}`;
  let writerClient: Client | undefined;
  let readerClient: Client | undefined;
  try {
    // The store holds password and key hashes: only its owner reads it (SQLite gives the WAL
    // and shared-memory files the same mode).
    if (path !== ":memory:") await createPrivateFile(path);
    writerClient = createClient({ url, concurrency: 1, timeout: busyTimeoutMs } as never);
    for (
      const pragma of [
        "journal_mode = WAL",
        `busy_timeout = ${busyTimeoutMs}`,
        "foreign_keys = ON",
        "synchronous = NORMAL",
      ]
    ) await writerClient.execute(`PRAGMA ${pragma}`);
    const writer = drizzle(writerClient, { schema });
    // One process owns the file (the data-dir lock), so migrating needs no lock of its own.
    await migrate(writer, { migrationsFolder });
    // An in-memory database exists only on its one connection, so it reads through the writer.
    readerClient = path === ":memory:"
      ? writerClient
      : createClient({ url, concurrency: 4, timeout: busyTimeoutMs } as never);
    const reader = readerClient === writerClient ? writer : drizzle(readerClient, { schema });
    return makeStore(path, writer, reader, [writerClient, readerClient]);
  } catch (e) {
    writerClient?.close();
    if (readerClient !== writerClient) readerClient?.close();
    throw explainSqliteError(path, e);
  }
}

function makeStore(path: string, writer: Db, reader: Db, clients: Client[]): Store {
  const queue = writeQueue();
  return {
    dialect: "sqlite",
    path,
    db: reader,
    write<T>(fn: Parameters<Store["write"]>[0]): Promise<T> {
      return queue(() => writer.transaction(fn) as Promise<T>).catch((e) => {
        throw explainSqliteError(path, e);
      });
    },
    async run(q: DialectSql, tx: Parameters<Store["run"]>[1]): Promise<number> {
      return (await tx.run(q.sqlite)).rowsAffected;
    },
    async all<T>(q: DialectSql, tx?: Parameters<Store["all"]>[1]): Promise<T[]> {
      return await (tx ?? reader).all<T>(q.sqlite);
    },
    async close() {
      // The writer goes last: SQLite removes the WAL when its last connection closes, and a
      // reader closed after the writer can leave it behind (a data directory that `init` was
      // run on twice must be unchanged).
      const [writerClient, ...readers] = clients;
      for (const c of new Set(readers)) if (c !== writerClient) c.close();
      await queue(async () => {
        try {
          await writerClient!.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch {
          // Closed already, or busy: closing still ends the connection.
        }
      });
      writerClient!.close();
    },
  };
}

/** Turns SQLite's codes into sentences an operator can act on; anything else passes through. */
export function explainSqliteError(path: string, e: unknown): unknown {
  if (e instanceof StoreError) return e;
  const text = causeChain(e).join(" | ");
  if (/SQLITE_BUSY|SQLITE_LOCKED|database is locked/i.test(text)) {
    return new StoreError(
      `The store ${path} is locked by another process (waited ${busyTimeoutMs} ms). ` +
        `Is another llmgw running on the same data directory?`,
    );
  }
  if (/SQLITE_CORRUPT|SQLITE_NOTADB|file is not a database|malformed/i.test(text)) {
    return new StoreError(
      `The store ${path} is damaged or is not an llmgw database. ` +
        `Restore it from a backup, or move it away to start afresh.`,
    );
  }
  if (/SQLITE_CANTOPEN|unable to open/i.test(text)) {
    return new StoreError(
      `Cannot open the store ${path}: check that its directory exists and is writable.`,
    );
  }
  return e;
}

async function createPrivateFile(path: string): Promise<void> {
  try {
    (await Deno.open(path, { createNew: true, write: true, mode: 0o600 })).close();
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
}
