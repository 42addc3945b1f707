/**
 * Where live sessions sit, agreed among the control planes that share a store. Behind a load
 * balancer a conversation's turns reach different control planes; each must send them to the
 * replica whose prompt cache holds the conversation, and must count the sessions the others
 * placed when it places a new one (a replica holds as many live sessions as its slots).
 *
 * Why a shared table (`session_places`) and not bounded-load hashing over exchanged loads:
 * bounded-load hashing agrees only when every router sees the same loads, and the loads here are
 * the live sessions per replica, which change with every new conversation, far faster than any
 * exchange (a load balancer sends a conversation's second turn elsewhere within milliseconds).
 * Routers a count apart place a session differently, and then its turns alternate between two
 * engines and neither keeps its cache. The table makes the first placement the one everybody
 * adopts: insert-if-absent, so two racing routers read back one winner; the counts a new session
 * is placed by are read from the same rows, as fresh as the store.
 *
 * Cheap on the request path: a session this control plane placed or read within `recheckMs` costs
 * nothing (the local SessionTable answers); otherwise one primary-key read; a new session adds one
 * bounded count and one insert (not waited for), against a first turn that has nothing cached. Keeping a
 * session alive writes its `seen_at` in batches, off the request path. The store is never waited
 * on longer than `waitMs`, and a store that fails or is slow leaves the router deciding alone, as
 * it did before (the answer never depends on this, only cache hits do).
 *
 * Keys are the router's tenant-seeded session hashes (request_keys.ts), so one tenant's session
 * id never finds another tenant's row; no session id, prompt or key is stored.
 */
import { eq, lt, sql } from "drizzle-orm";
import type { Logger } from "../../core/log.ts";
import { sessionPlaces } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import type { SessionTable } from "./session_table.ts";
import { alone, type Peers } from "../control/peers.ts";

export interface SessionPlacesOptions {
  store: Store;
  logger: Logger;
  /** A session without a request for this long holds no place (the session table's TTL). */
  ttlMs: number;
  /** How long what this control plane knows of a session is trusted before its row is read. */
  recheckMs: number;
  /** The longest the request path waits for the store. */
  waitMs: number;
  /** Sessions whose row this control plane remembers reading or writing. */
  maxEntries: number;
  /** Alone on the store (one box), the local table is the whole truth: the store is not asked. */
  peers?: Peers;
}

/** A replica whose live sessions are counted for a new one, up to `cap`. */
export interface CountedReplica {
  id: string;
  cap: number;
}

/** Touched sessions written per statement. */
const batch = 500;

export class SessionPlaces {
  /** When this control plane last read or wrote each session's row (least recent first). */
  readonly #checked = new Map<number, number>();
  /** When each session's `seen_at` was last written here. */
  readonly #written = new Map<number, number>();
  /** Sessions seen since their row was last written: replica and time. */
  #touched = new Map<number, { replicaId: string; seenAt: number }>();
  #lastSweep = -Infinity;
  #lastWarn = -Infinity;
  #timer: ReturnType<typeof setInterval> | undefined;
  #flushing: Promise<void> | undefined;
  /** Places being written, waited for at close. */
  readonly #writing = new Set<Promise<unknown>>();

  constructor(private readonly o: SessionPlacesOptions, private readonly sessions: SessionTable) {}

  get #alone(): boolean {
    return alone(this.o.peers);
  }

  /** Whether another control plane shares the store now: only then is there anything to agree. */
  get shared(): boolean {
    return !this.#alone;
  }

  /**
   * Before choosing: brings what the store knows of the session into the local table. For a
   * session no control plane has placed, the live sessions the store counts on each of
   * `replicas` (every one present, 0 included); undefined when the local table is to be used.
   */
  async learn(
    key: number,
    replicas: readonly CountedReplica[],
    now: number,
  ): Promise<Map<string, number> | undefined> {
    if (this.#alone) return undefined;
    const local = this.sessions.where(key, now);
    const checked = this.#checked.get(key);
    if (local !== undefined && checked !== undefined && now - checked < this.o.recheckMs) {
      return undefined;
    }
    const read = await this.#bounded("read a session's place", () => this.#row(key));
    if (!read) return undefined;
    remember(this.#checked, key, now, this.o.maxEntries);
    const row = read.row;
    if (row && now - row.seenAt < this.o.ttlMs) {
      if (row.replicaId !== local) this.sessions.place(key, row.replicaId, now);
      return undefined;
    }
    // Placed here but its row gone (a failed write, a sweep): it stays, and its next touch
    // writes the row again.
    if (local !== undefined || replicas.length === 0) return undefined;
    return await this.#bounded(
      "count the sessions on each replica",
      () => this.#counts(replicas, now),
    );
  }

  /**
   * After choosing `replicaId` for a session that sat nowhere (`moved` false) or elsewhere:
   * writes it, and when another control plane placed the session first, adopts that place for
   * the turns to come (this one goes where it was sent).
   */
  async publish(key: number, replicaId: string, moved: boolean, now: number): Promise<void> {
    if (this.#alone) return;
    const writing = this.#bounded(
      "write a session's place",
      () => moved ? this.#move(key, replicaId, now) : this.#claim(key, replicaId, now),
    );
    this.#writing.add(writing);
    const winner = await writing.finally(() => this.#writing.delete(writing));
    if (winner === undefined) return;
    remember(this.#checked, key, now, this.o.maxEntries);
    remember(this.#written, key, now, this.o.maxEntries);
    if (winner !== replicaId) this.sessions.place(key, winner, now);
  }

  /** The session went on where it sits: its row is kept alive by the next flush. */
  touch(key: number, replicaId: string, now: number): void {
    if (this.#alone) return;
    const written = this.#written.get(key);
    // A row written lately is alive for most of a TTL yet: not worth a write per turn.
    if (written !== undefined && now - written < this.o.ttlMs / 4) return;
    this.#touched.set(key, { replicaId, seenAt: now });
  }

  start(flushMs: number, now: () => number): void {
    this.#timer ??= setInterval(() => void this.flush(now()), flushMs);
  }

  async close(now: number): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all(this.#writing);
    await this.flush(now);
  }

  /**
   * Writes the touched sessions' `seen_at` (never over a place another control plane moved the
   * session to since), and now and then deletes rows past the TTL.
   */
  flush(now: number): Promise<void> {
    this.#flushing ??= this.#flush(now).catch((e) => this.#warn("keep sessions' places", e))
      .finally(() => this.#flushing = undefined);
    return this.#flushing;
  }

  async #flush(now: number): Promise<void> {
    const rows = [...this.#touched].map(([sessionKey, t]) => ({ sessionKey, ...t }));
    this.#touched = new Map();
    const sweep = now - this.#lastSweep >= this.o.ttlMs / 4;
    if (rows.length === 0 && !sweep) return;
    await this.o.store.write(async (tx) => {
      for (let i = 0; i < rows.length; i += batch) {
        await tx.insert(sessionPlaces).values(rows.slice(i, i + batch)).onConflictDoUpdate({
          target: sessionPlaces.sessionKey,
          set: { seenAt: sql`excluded.seen_at` },
          setWhere: sql`${sessionPlaces.replicaId} = excluded.replica_id`,
        });
      }
      if (sweep) await tx.delete(sessionPlaces).where(lt(sessionPlaces.seenAt, now - this.o.ttlMs));
    });
    if (sweep) this.#lastSweep = now;
    for (const r of rows) remember(this.#written, r.sessionKey, now, this.o.maxEntries);
  }

  async #row(key: number) {
    const [row] = await this.o.store.db.select().from(sessionPlaces)
      .where(eq(sessionPlaces.sessionKey, key));
    return { row };
  }

  /**
   * Live sessions per replica, each counted up to `cap` of them: past a few times its slots a
   * replica's caches turn over every turn however many more it holds, and a count that stops
   * there reads a bounded stretch of the index however many sessions are live (one statement).
   */
  async #counts(
    replicas: readonly CountedReplica[],
    now: number,
  ): Promise<Map<string, number>> {
    const since = now - this.o.ttlMs;
    const parts = replicas.map((r, i) =>
      sql`select ${
        sql.raw(String(i))
      } as i, (select count(*) from (select 1 from ${sessionPlaces} where ${sessionPlaces.replicaId} = ${r.id} and ${sessionPlaces.seenAt} >= ${since} limit ${r.cap}) s) as n`
    );
    const q = sql.join(parts, sql` union all `);
    const rows = await this.o.store.all<{ i: number | string; n: number | string }>({
      sqlite: q,
      postgres: q,
    });
    const out = new Map(replicas.map((r) => [r.id, 0]));
    for (const row of rows) out.set(replicas[Number(row.i)]!.id, Number(row.n));
    return out;
  }

  /** Insert-if-absent (or over a row past its TTL); the place the session has after it. */
  async #claim(key: number, replicaId: string, now: number): Promise<string> {
    const rows = await this.o.store.write((tx) =>
      tx.insert(sessionPlaces).values({ sessionKey: key, replicaId, seenAt: now })
        .onConflictDoUpdate({
          target: sessionPlaces.sessionKey,
          set: { replicaId, seenAt: now },
          setWhere: lt(sessionPlaces.seenAt, now - this.o.ttlMs),
        })
        .returning({ replicaId: sessionPlaces.replicaId })
    );
    if (rows.length > 0) return replicaId;
    const read = await this.#row(key);
    return read.row?.replicaId ?? replicaId;
  }

  async #move(key: number, replicaId: string, now: number): Promise<string> {
    await this.o.store.write((tx) =>
      tx.insert(sessionPlaces).values({ sessionKey: key, replicaId, seenAt: now })
        .onConflictDoUpdate({ target: sessionPlaces.sessionKey, set: { replicaId, seenAt: now } })
    );
    return replicaId;
  }

  /** `fn`'s result, or undefined when it failed or took longer than `waitMs` (it runs on). */
  async #bounded<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.o.waitMs);
    });
    try {
      return await Promise.race([
        fn().catch((e) => {
          this.#warn(what, e);
          return undefined;
        }),
        late,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** At most one warning a minute: a store that is down says so once, not per request. */
  #warn(what: string, e: unknown): void {
    const now = Date.now();
    if (now - this.#lastWarn < 60_000) return;
    this.#lastWarn = now;
    this.o.logger.warn(`could not ${what} in the store; routing decides alone meanwhile`, {
      error: e as Error,
    });
  }
}

/** Sets `key` as the most recent entry of a map kept to `max` entries, least recent dropped. */
function remember(m: Map<number, number>, key: number, at: number, max: number): void {
  m.delete(key);
  m.set(key, at);
  if (m.size > max) m.delete(m.keys().next().value!);
}
