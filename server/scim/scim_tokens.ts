/**
 * The bearer tokens an identity provider provisions with (`ctl scim token create`): shown once,
 * stored as sha256 (256-bit random, so a fast hash is enough), revocable. A SCIM token opens
 * /scim/v2 and nothing else: it is no admin token.
 */
import { and, eq, isNull } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { scimTokens } from "../../db/schema.ts";
import { constantTimeEqual, randomToken, sha256Hex, sha256HexSync } from "../auth/secrets.ts";
import { AppError } from "../../core/errors.ts";

export const scimTokenPrefix = "llmgw_scim_";

export interface ScimTokenView {
  id: string;
  name: string;
  created_at: number;
  revoked_at: number | null;
}

export class ScimTokens {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async create(name: string): Promise<{ id: string; token: string }> {
    const token = randomToken(scimTokenPrefix);
    const id = ulid();
    await this.deps.store.write((tx) =>
      tx.insert(scimTokens).values({
        id,
        name,
        tokenHash: sha256HexSync(token),
        createdAt: this.deps.clock.now(),
      })
    );
    return { id, token };
  }

  async list(): Promise<ScimTokenView[]> {
    const rows = await this.deps.store.db.select().from(scimTokens);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      created_at: r.createdAt,
      revoked_at: r.revokedAt,
    }));
  }

  async revoke(id: string): Promise<void> {
    const rows = await this.deps.store.write((tx) =>
      tx.update(scimTokens).set({ revokedAt: this.deps.clock.now() }).where(
        and(eq(scimTokens.id, id), isNull(scimTokens.revokedAt)),
      ).returning()
    );
    if (!rows.length) throw new AppError("not_found", { path: `scim token ${id}` });
  }

  /** The token's name when it is valid and not revoked. */
  async identify(presented: string): Promise<{ id: string; name: string } | undefined> {
    if (!presented.startsWith(scimTokenPrefix)) return undefined;
    const hash = await sha256Hex(presented);
    const rows = await this.deps.store.db.select().from(scimTokens).where(
      and(eq(scimTokens.tokenHash, hash), isNull(scimTokens.revokedAt)),
    );
    const row = rows.find((r) => constantTimeEqual(r.tokenHash, hash));
    return row ? { id: row.id, name: row.name } : undefined;
  }
}
