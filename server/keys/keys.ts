/**
 * API keys: made here, shown once, stored as a sha256 hash with a visible prefix. A key ends in a
 * checksum of the rest, so a mistyped or made-up key is refused without reading the store.
 * Answers are cached; concurrent misses for one key share one store read (single-flight), so a
 * busy key whose entry expires causes one read, not one per request in flight. Unknown keys are
 * counted per client address and refused with 429 past an allowance; the allowance counts only
 * refusals, so a valid key is never refused because of it.
 */
import { BoundedMap } from "../../core/bounded_map.ts";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import type { Store } from "../../db/store.ts";
import { apiKeys } from "../../db/schema.ts";
import { randomToken, sha256HexSync } from "../auth/secrets.ts";
import { AppError } from "../../core/errors.ts";

export const keyPrefix = "sk-llmgw-";
/** Long enough to tell keys apart in a listing and a log line, far too short to help guess one. */
const shownPrefixLength = keyPrefix.length + 8;
/** The part of a key that may be shown: what listings show. */
export const shownPrefix = (key: string) => key.slice(0, shownPrefixLength);
const bodyLength = 43; // 32 random bytes in base64url
const checksumLength = 6;

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  userId: string | null;
  projectId: string | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export interface CreatedKey extends ApiKeyInfo {
  /** The key itself. It exists only in this answer. */
  key: string;
}

export type KeyCheck =
  | { ok: true; key: ApiKeyInfo }
  | { ok: false; reason: "invalid" | "expired" | "revoked" }
  | { ok: false; reason: "throttled"; retryAfterMs: number };

/** The one store read a key check may make; a port so tests can count and slow it. */
export interface KeyLookup {
  byHash(hash: string): Promise<ApiKeyInfo | undefined>;
}

function checksum(text: string): string {
  return Buffer.from(sha256HexSync(`llmgw-key:${text}`), "hex").toString("base64url")
    .slice(0, checksumLength);
}

/** Checks a key's shape and checksum; no store involved. Keys made before checksums pass on shape. */
export function wellFormed(presented: string): boolean {
  if (!presented.startsWith(keyPrefix)) return false;
  const rest = presented.length - keyPrefix.length;
  if (rest === bodyLength) return /^[A-Za-z0-9_-]+$/.test(presented.slice(keyPrefix.length));
  if (rest !== bodyLength + checksumLength) return false;
  const body = presented.slice(0, -checksumLength);
  return checksum(body) === presented.slice(-checksumLength);
}

export function storeKeyLookup(store: Store): KeyLookup {
  return {
    async byHash(hash) {
      const [row] = await store.db.select().from(apiKeys).where(eq(apiKeys.keyHash, hash));
      if (!row) return undefined;
      const { keyHash: _, ...info } = row;
      return info;
    },
  };
}

export interface KeyServiceDeps {
  store: Store;
  clock: Clock;
  cacheMs: number;
  lookup?: KeyLookup;
  logger?: Logger;
  /** Unknown keys one client address may present per minute before it gets 429s. */
  unknownPerMinute?: number;
  /** Told of each revocation, so the other control planes drop the key from their caches. */
  changes?: ChangeFeed;
}

export class KeyService {
  readonly #cache = new Map<string, { result: KeyCheck; until: number }>();
  readonly #inflight = new Map<string, Promise<KeyCheck>>();
  /** Unknown keys per client address; bounded, the stalest address out first. */
  readonly #unknown = new BoundedMap<string, { since: number; count: number }>(10_000);
  readonly #used = new Map<string, number>();
  readonly #lookup: KeyLookup;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Store reads made for key checks: a figure tests and metrics read. */
  reads = 0;

  constructor(private readonly deps: KeyServiceDeps) {
    this.#lookup = deps.lookup ?? storeKeyLookup(deps.store);
  }

  /** Starts writing `last used` times every `ms`; `close()` writes the rest. */
  startFlushing(ms: number): void {
    this.#timer ??= setInterval(() => void this.flushUsed(), ms);
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.flushUsed();
  }

  async create(input: {
    name: string;
    userId?: string | null;
    projectId?: string | null;
    expiresAt?: number | null;
  }): Promise<CreatedKey> {
    const name = input.name.trim();
    if (!name || name.length > 100) {
      throw new AppError("invalid_request", { detail: "name must be 1 to 100 characters" }, "name");
    }
    const body = randomToken(keyPrefix);
    const key = body + checksum(body);
    const row = {
      id: ulid(),
      name,
      prefix: shownPrefix(key),
      keyHash: sha256HexSync(key),
      userId: input.userId ?? null,
      projectId: input.projectId ?? null,
      createdAt: this.deps.clock.now(),
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
      lastUsedAt: null,
    };
    await this.deps.store.write((tx) => tx.insert(apiKeys).values(row));
    const { keyHash: _, ...info } = row;
    return { ...info, key };
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.deps.store.db.select().from(apiKeys).orderBy(apiKeys.id);
    return rows.map(({ keyHash: _, ...info }) => ({
      ...info,
      lastUsedAt: this.#used.get(info.id) ?? info.lastUsedAt,
    }));
  }

  async get(id: string): Promise<ApiKeyInfo | undefined> {
    const [row] = await this.deps.store.db.select().from(apiKeys).where(eq(apiKeys.id, id));
    if (!row) return undefined;
    const { keyHash: _, ...info } = row;
    return { ...info, lastUsedAt: this.#used.get(id) ?? info.lastUsedAt };
  }

  async revoke(id: string): Promise<ApiKeyInfo> {
    const now = this.deps.clock.now();
    const [row] = await this.deps.store.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: now }).where(
        and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)),
      ).returning()
    );
    if (!row) throw new AppError("not_found", { path: `/api/v1/keys/${id}` });
    // A revoked key must stop working at once, not when its cache entry runs out.
    for (const [hash, entry] of this.#cache) {
      if (entry.result.ok && entry.result.key.id === id) this.#cache.delete(hash);
    }
    this.deps.changes?.changed("keys");
    const { keyHash: _, ...info } = row;
    return info;
  }

  async check(presented: string, clientAddr = "local"): Promise<KeyCheck> {
    const now = this.deps.clock.now();
    const hash = sha256HexSync(presented);
    const cached = this.#cache.get(hash);
    let result: KeyCheck;
    if (cached && cached.until > now) {
      // Only a well-formed key is ever looked up, so only one has a cache entry.
      result = cached.result;
    } else {
      if (!wellFormed(presented)) return this.#refuse(clientAddr, now, "invalid");
      let flight = this.#inflight.get(hash);
      if (!flight) {
        flight = this.#resolve(hash).finally(() => this.#inflight.delete(hash));
        this.#inflight.set(hash, flight);
      }
      result = await flight;
    }
    const judged = this.#judge(result, now);
    if (!judged.ok) {
      return judged.reason === "invalid" ? this.#refuse(clientAddr, now, "invalid") : judged;
    }
    this.#used.set(judged.key.id, now);
    return judged;
  }

  /** One store read per key however many requests wait on it. Store errors are not cached. */
  async #resolve(hash: string): Promise<KeyCheck> {
    this.reads++;
    const info = await this.#lookup.byHash(hash);
    const result: KeyCheck = info ? { ok: true, key: info } : { ok: false, reason: "invalid" };
    if (this.deps.cacheMs > 0) {
      if (this.#cache.size > 10_000) this.#cache.clear();
      this.#cache.set(hash, { result, until: this.deps.clock.now() + this.deps.cacheMs });
    }
    return result;
  }

  /** Counts an unknown key against the address; past the allowance the answer becomes 429. */
  #refuse(addr: string, now: number, reason: "invalid"): KeyCheck {
    const allowance = this.deps.unknownPerMinute ?? 30;
    let w = this.#unknown.get(addr);
    if (!w || now - w.since >= 60_000) w = { since: now, count: 0 };
    w.count++;
    this.#unknown.set(addr, w);
    if (w.count > allowance) {
      return { ok: false, reason: "throttled", retryAfterMs: w.since + 60_000 - now };
    }
    return { ok: false, reason };
  }

  /** Expiry and revocation are judged on every use, so a cached key still lapses on time. */
  #judge(result: KeyCheck, now: number): KeyCheck {
    if (!result.ok) return result;
    if (result.key.revokedAt !== null) return { ok: false, reason: "revoked" };
    if (result.key.expiresAt !== null && result.key.expiresAt <= now) {
      return { ok: false, reason: "expired" };
    }
    return result;
  }

  /** Writes the `last used` times gathered since the last flush, in one transaction. */
  async flushUsed(): Promise<void> {
    if (this.#used.size === 0) return;
    const batch = [...this.#used];
    this.#used.clear();
    try {
      await this.deps.store.write(async (tx) => {
        for (const [id, at] of batch) {
          await tx.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
        }
      });
    } catch (e) {
      for (const [id, at] of batch) if (!this.#used.has(id)) this.#used.set(id, at);
      this.deps.logger?.error("last-used times not written; will retry", { error: e });
    }
  }

  /** Revokes every live key of a person (used when a person is suspended). */
  async revokeAllOf(userId: string): Promise<number> {
    const now = this.deps.clock.now();
    const rows = await this.deps.store.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: now }).where(
        and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)),
      ).returning({ id: apiKeys.id })
    );
    const ids = new Set(rows.map((r) => r.id));
    for (const [hash, entry] of this.#cache) {
      if (entry.result.ok && ids.has(entry.result.key.id)) this.#cache.delete(hash);
    }
    if (ids.size) this.deps.changes?.changed("keys");
    return ids.size;
  }

  /** Another control plane revoked keys: every cached answer is read again from the store. */
  forgetCached(): void {
    this.#cache.clear();
  }

  async byIds(ids: string[]): Promise<ApiKeyInfo[]> {
    if (ids.length === 0) return [];
    const rows = await this.deps.store.db.select().from(apiKeys).where(inArray(apiKeys.id, ids));
    return rows.map(({ keyHash: _, ...info }) => info);
  }
}
