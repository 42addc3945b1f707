/** Admin tokens: the operator's credential for /api/v1, stored as a hash. */
import { and, eq, isNull } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { adminTokens } from "../../db/schema.ts";
import { constantTimeEqual, randomToken, sha256Hex } from "./secrets.ts";

export const adminTokenPrefix = "llmgw_adm_";

export class AdminTokens {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async create(name: string): Promise<string> {
    const token = randomToken(adminTokenPrefix);
    const row = {
      id: ulid(),
      name,
      tokenHash: await sha256Hex(token),
      createdAt: this.deps.clock.now(),
    };
    await this.deps.store.write((tx) => tx.insert(adminTokens).values(row));
    return token;
  }

  async check(presented: string): Promise<boolean> {
    return (await this.identify(presented)) !== undefined;
  }

  /** The token's id and name when it is valid and not revoked. */
  async identify(presented: string): Promise<{ id: string; name: string } | undefined> {
    if (!presented.startsWith(adminTokenPrefix)) return undefined;
    const hash = await sha256Hex(presented);
    const rows = await this.deps.store.db.select().from(adminTokens).where(
      and(eq(adminTokens.tokenHash, hash), isNull(adminTokens.revokedAt)),
    );
    const row = rows.find((r) => constantTimeEqual(r.tokenHash, hash));
    return row ? { id: row.id, name: row.name } : undefined;
  }
}

/** The token from `Authorization: Bearer …` (or `x-api-key`, which Anthropic-style clients send). */
export function bearerToken(req: Request): string | undefined {
  const auth = req.headers.get("authorization");
  if (auth) {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m?.[1]?.trim();
  }
  return req.headers.get("x-api-key")?.trim() || undefined;
}
