/**
 * API keys: made here, shown once, stored as a sha256 hash with a visible prefix. Checking a
 * key finds candidates by prefix (public) and compares hashes in constant time; answers are
 * remembered briefly so a flood of requests, or of wrong keys, does not become a flood of reads.
 */
import { and, eq, isNull } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { apiKeys } from "../../db/schema.ts";
import { constantTimeEqual, randomToken, sha256Hex } from "../auth/secrets.ts";
import { AppError } from "../errors.ts";

export const keyPrefix = "sk-llmgw-";
/** Long enough to tell keys apart in a listing, far too short to help guess one. */
const shownPrefixLength = keyPrefix.length + 6;

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  userId: string | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface CreatedKey extends ApiKeyInfo {
  /** The key itself. It exists only in this answer. */
  key: string;
}

export type KeyCheck = { ok: true; key: ApiKeyInfo } | {
  ok: false;
  reason: "invalid" | "expired" | "revoked";
};

export class KeyService {
  readonly #cache = new Map<string, { result: KeyCheck; until: number }>();

  constructor(
    private readonly deps: { store: Store; clock: Clock; cacheMs: number },
  ) {}

  async create(input: { name: string; userId?: string; expiresAt?: number }): Promise<CreatedKey> {
    const name = input.name.trim();
    if (!name || name.length > 100) {
      throw new AppError("invalid_request", { detail: "name must be 1 to 100 characters" }, "name");
    }
    const key = randomToken(keyPrefix);
    const row = {
      id: ulid(),
      name,
      prefix: key.slice(0, shownPrefixLength),
      keyHash: await sha256Hex(key),
      userId: input.userId ?? null,
      createdAt: this.deps.clock.now(),
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
    };
    await this.deps.store.write((tx) => tx.insert(apiKeys).values(row));
    const { keyHash: _, ...info } = row;
    return { ...info, key };
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.deps.store.db.select().from(apiKeys).orderBy(apiKeys.id);
    return rows.map(({ keyHash: _, ...info }) => info);
  }

  async revoke(id: string): Promise<ApiKeyInfo> {
    const now = this.deps.clock.now();
    const [row] = await this.deps.store.write((tx) =>
      tx.update(apiKeys).set({ revokedAt: now }).where(
        and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)),
      )
        .returning()
    );
    if (!row) throw new AppError("not_found", { path: `/api/v1/keys/${id}` });
    // A revoked key must stop working at once, not when its cache entry runs out.
    this.#cache.clear();
    const { keyHash: _, ...info } = row;
    return info;
  }

  async check(presented: string): Promise<KeyCheck> {
    const now = this.deps.clock.now();
    const hash = await sha256Hex(presented);
    const cached = this.#cache.get(hash);
    if (cached && cached.until > now) return this.#judge(cached.result, now);
    const result = await this.#lookup(presented, hash);
    if (this.deps.cacheMs > 0) {
      if (this.#cache.size > 10_000) this.#cache.clear();
      this.#cache.set(hash, { result, until: now + this.deps.cacheMs });
    }
    return this.#judge(result, now);
  }

  async #lookup(presented: string, hash: string): Promise<KeyCheck> {
    if (!presented.startsWith(keyPrefix)) return { ok: false, reason: "invalid" };
    const candidates = await this.deps.store.db.select().from(apiKeys).where(
      eq(apiKeys.prefix, presented.slice(0, shownPrefixLength)),
    );
    for (const row of candidates) {
      if (!constantTimeEqual(row.keyHash, hash)) continue;
      const { keyHash: _, ...info } = row;
      return { ok: true, key: info };
    }
    return { ok: false, reason: "invalid" };
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
}
