/**
 * Sign-in sessions: a random token in an HttpOnly cookie, stored as its sha256, revocable at
 * once (every check reads the store: the admin API is not the hot path, and a revoked session
 * must stop now). The CSRF token is derived from the session token, so it needs no storage and
 * cannot be computed by a page that cannot read the cookie.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { sessions } from "../../db/schema.ts";
import { constantTimeEqual, randomToken, sha256HexSync } from "./secrets.ts";

export const sessionCookie = "llmgw_session";
export const sessionPrefix = "llmgw_ses_";

export function csrfFor(sessionToken: string): string {
  return sha256HexSync(`llmgw-csrf:${sessionToken}`).slice(0, 40);
}

export function csrfMatches(sessionToken: string, presented: string | undefined): boolean {
  return presented !== undefined && constantTimeEqual(csrfFor(sessionToken), presented);
}

export class Sessions {
  constructor(private readonly deps: { store: Store; clock: Clock; ttlMs: number }) {}

  async open(userId: string): Promise<{ token: string; id: string; expiresAt: number }> {
    const token = randomToken(sessionPrefix);
    const now = this.deps.clock.now();
    const row = {
      id: ulid(),
      tokenHash: sha256HexSync(token),
      userId,
      createdAt: now,
      expiresAt: now + this.deps.ttlMs,
      revokedAt: null,
    };
    await this.deps.store.write((tx) => tx.insert(sessions).values(row));
    return { token, id: row.id, expiresAt: row.expiresAt };
  }

  async check(token: string): Promise<{ id: string; userId: string } | undefined> {
    if (!token.startsWith(sessionPrefix)) return undefined;
    const [row] = await this.deps.store.db.select().from(sessions).where(and(
      eq(sessions.tokenHash, sha256HexSync(token)),
      isNull(sessions.revokedAt),
      gt(sessions.expiresAt, this.deps.clock.now()),
    ));
    return row ? { id: row.id, userId: row.userId } : undefined;
  }

  async revoke(token: string): Promise<void> {
    await this.deps.store.write((tx) =>
      tx.update(sessions).set({ revokedAt: this.deps.clock.now() }).where(
        eq(sessions.tokenHash, sha256HexSync(token)),
      )
    );
  }

  /** Ends every session of a person: suspension, role change, password reset. */
  async revokeAllOf(userId: string): Promise<void> {
    await this.deps.store.write((tx) =>
      tx.update(sessions).set({ revokedAt: this.deps.clock.now() }).where(
        and(eq(sessions.userId, userId), isNull(sessions.revokedAt)),
      )
    );
  }
}
