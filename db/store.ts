/**
 * The store: SQLite through libSQL, with Drizzle on top. There is exactly one write path
 * (`write`), a single connection whose transactions run one after another, so writers never
 * fight over the lock inside this process; reads use a small pool of their own.
 */
import { type Client, createClient } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "./schema.ts";

export type Db = LibSQLDatabase<typeof schema>;
/** What a write callback gets: a transaction with the same query surface as the database. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export class StoreError extends Error {
  override name = "StoreError";
}

export interface Store {
  readonly path: string;
  /** For reads. Never write through it: use `write`. */
  readonly db: Db;
  /** Runs `fn` in a write transaction, after every write queued before it. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  close(): void;
}

const busyTimeoutMs = 5_000;
const migrationsFolder = new URL("./migrations", import.meta.url).pathname;

/** Opens (creating if needed) the store at `path` and applies pending migrations. */
export async function openStore(path: string): Promise<Store> {
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
    throw explainStoreError(path, e);
  }
}

function makeStore(path: string, writer: Db, reader: Db, clients: Client[]): Store {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    path,
    db: reader,
    write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      const run = tail.then(() => writer.transaction(fn)).catch((e) => {
        throw explainStoreError(path, e);
      });
      tail = run.catch(() => {});
      return run;
    },
    close() {
      for (const c of new Set(clients)) c.close();
    },
  };
}

/** Turns SQLite's codes into sentences an operator can act on; anything else passes through. */
export function explainStoreError(path: string, e: unknown): unknown {
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

function causeChain(e: unknown): string[] {
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

async function createPrivateFile(path: string): Promise<void> {
  try {
    (await Deno.open(path, { createNew: true, write: true, mode: 0o600 })).close();
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
}
