/**
 * The cluster's store: PostgreSQL through postgres.js. One pool per control plane; a URL may
 * name several hosts (`postgres://h1:5432,h2:5432/llmgw`, as libpq allows), tried in turn, each
 * within the connect timeout, and only a writable one is kept (`target_session_attrs`), so a
 * Patroni failover moves the pool to the new primary. A lost connection is not an error of
 * its own: the next query reconnects, and what fails meanwhile is only what needed the store.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import * as schema from "./schema.ts";
import {
  causeChain,
  type Db,
  type DialectSql,
  type Store,
  StoreError,
  type Tx,
  writeQueue,
} from "./store.ts";

const migrationsFolder = new URL("./migrations_pg", import.meta.url).pathname;

/** Bounds on every connection; a URL's own query parameters win over these. */
export const pgDefaults = {
  /** Seconds to reach one host before the next is tried. */
  connectTimeoutS: 5,
  /** Idle seconds before TCP keepalive probes start, so a dead peer is noticed without traffic. */
  keepAliveS: 10,
  /** The longest one statement may run, in ms. */
  statementTimeoutMs: 30_000,
  poolSize: 10,
} as const;

/** Any key for the advisory lock that serialises migrations; all that matters is that it is fixed. */
const migrationLockKey = 0x6c6c6d67; // "llmg"

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
}

export function pgClient(
  url: string,
  opts: { max?: number; statementTimeoutMs?: number } = {},
): postgres.Sql {
  const query = new URL(url.replace(/^postgres(ql)?:\/\/[^/?#]*/i, "pg://h")).searchParams;
  return postgres(url, {
    max: opts.max ?? pgDefaults.poolSize,
    connect_timeout: pgDefaults.connectTimeoutS,
    keep_alive: pgDefaults.keepAliveS,
    // "primary", not "read-write": postgres.js judges read-write by default_transaction_read_only
    // alone, which a hot standby reports as off, so a pool could settle on a standby after a
    // failover (seen in the Patroni trial of docs/ha.md); primary reads in_hot_standby.
    ...(query.has("target_session_attrs") ? {} : { target_session_attrs: "primary" as const }),
    connection: {
      application_name: "llmgw",
      ...(query.has("statement_timeout") ? {} : {
        statement_timeout: opts.statementTimeoutMs ?? pgDefaults.statementTimeoutMs,
      }),
    },
    // SQLite hands back integers as numbers and the query code expects them so: 64-bit
    // integers (bigint, count(*)) and sums (numeric) read as numbers, all of ours well within
    // 2^53.
    types: {
      int8: {
        to: 20,
        from: [20, 1700],
        serialize: (x: number) => String(x),
        parse: (x: string) => Number(x),
      },
      // SQLite's boolean columns hand over 1/0, which postgres.js would send as false.
      bool: {
        to: 16,
        from: [16],
        serialize: (x: unknown) => (x === true || x === 1 ? "t" : "f"),
        parse: (x: string) => x === "t",
      },
    },
    onnotice: () => {},
  });
}

export async function openPgStore(url: string): Promise<Store> {
  const path = redactUrl(url);
  const client = pgClient(url);
  try {
    await migrateUnderLock(url);
    return makeStore(path, client);
  } catch (e) {
    await client.end({ timeout: 1 });
    throw explainPgError(path, e);
  }
}

/**
 * Applies pending migrations holding a session advisory lock, so control planes starting
 * together migrate once: the others wait, then find nothing to do. One connection of its own
 * (the lock belongs to its session) without the statement bound: a migration over a big table,
 * and the wait for another control plane's, may take longer than a request's statement.
 */
async function migrateUnderLock(url: string): Promise<void> {
  const session = pgClient(url, { max: 1, statementTimeoutMs: 0 });
  try {
    await session`SELECT pg_advisory_lock(${migrationLockKey})`;
    await migrate(drizzle(session), { migrationsFolder });
    await session`SELECT pg_advisory_unlock(${migrationLockKey})`;
  } finally {
    await session.end({ timeout: 1 });
  }
}

function makeStore(path: string, client: postgres.Sql): Store {
  // Typed as SQLite's at the seam (see db/store.ts): the builders' surface is the same.
  const db = drizzle(client, { schema }) as unknown as Db;
  const queue = writeQueue();
  const pgOf = (tx: Tx | undefined) =>
    (tx ?? db) as unknown as { execute(q: unknown): Promise<unknown[] & { count: number }> };
  return {
    dialect: "postgres",
    path,
    db,
    write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
      return queue(() => db.transaction(fn)).catch((e) => {
        throw explainPgError(path, e);
      });
    },
    async run(q: DialectSql, tx: Tx): Promise<number> {
      return (await pgOf(tx).execute(q.postgres)).count;
    },
    async all<T>(q: DialectSql, tx?: Tx): Promise<T[]> {
      return [...await pgOf(tx).execute(q.postgres)] as T[];
    },
    notifications: {
      async notify(channel, payload, tx) {
        await pgOf(tx).execute(sql`select pg_notify(${channel}, ${payload})`);
      },
      async listen(channel, fn, onListen) {
        // postgres.js keeps one connection of its own for LISTEN and re-listens after a loss
        // (a restart, a Patroni failover), calling onListen again each time.
        const { unlisten } = await client.listen(channel, fn, onListen);
        return { unlisten };
      },
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/** Turns connection failures into sentences an operator can act on; anything else passes through. */
export function explainPgError(path: string, e: unknown): unknown {
  if (e instanceof StoreError) return e;
  const text = causeChain(e).join(" | ");
  if (
    /ECONNREFUSED|CONNECT_TIMEOUT|ENOTFOUND|EHOSTUNREACH|CONNECTION_CLOSED|ECONNRESET/.test(text)
  ) {
    return new StoreError(
      `Cannot reach the PostgreSQL store ${path} (${text.trim().slice(0, 200)}). ` +
        `Is the server up and the address right?`,
      { cause: e },
    );
  }
  if (/28P01|28000|password authentication failed/i.test(text)) {
    return new StoreError(
      `PostgreSQL refused the credentials in store.url (${path}).`,
      { cause: e },
    );
  }
  if (/3D000/.test(text)) {
    return new StoreError(
      `The database in store.url (${path}) does not exist: create it (createdb) first.`,
      { cause: e },
    );
  }
  return e;
}
