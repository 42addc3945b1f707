/**
 * One-time join codes. The code carries a random secret; the store keeps its sha256, the labels
 * the node will get, and when it expires. Redeeming marks it used and creates the node in the same
 * transaction, so two machines racing with one code cannot both get in.
 */
import { eq } from "drizzle-orm";
import { ulid } from "ulid";
import type { Clock } from "../../core/clock.ts";
import { encodeJoinCode } from "../../core/protocol/join_code.ts";
import { joinCodes, nodes } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { randomToken, sha256Hex } from "../auth/secrets.ts";
import { AppError } from "../../core/errors.ts";

export interface CreatedJoinCode {
  id: string;
  code: string;
  urls: string[];
  labels: Record<string, string>;
  expiresAt: number;
}

export interface JoinedNode {
  nodeId: string;
  name: string;
  /** Shown to the node once; the store keeps its hash. */
  credential: string;
}

export class JoinCodes {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      /** The cluster's https URLs (every live control plane's) and CA fingerprint, for each code. */
      cluster: () => Promise<{ urls: string[]; caFingerprint: string }>;
    },
  ) {}

  async create(input: { labels: Record<string, string>; ttlMs: number }): Promise<CreatedJoinCode> {
    const { urls, caFingerprint } = await this.deps.cluster();
    const secret = randomToken("", 32);
    const now = this.deps.clock.now();
    const row = {
      id: ulid(),
      secretHash: await sha256Hex(secret),
      labels: input.labels,
      createdAt: now,
      expiresAt: now + input.ttlMs,
    };
    await this.deps.store.write((tx) => tx.insert(joinCodes).values(row));
    return {
      id: row.id,
      code: encodeJoinCode({ urls, secret, ca: caFingerprint }),
      urls,
      labels: input.labels,
      expiresAt: row.expiresAt,
    };
  }

  /**
   * Uses the code and creates the node; a code that is unknown, used or expired is refused. A
   * name another node has is made distinct (host-2, host-3, …): agents joined from one host
   * would otherwise all be named after it, and `ctl nodes … NAME` could not tell them apart.
   */
  async redeem(secret: string, asked: string): Promise<JoinedNode> {
    let name = asked;
    const hash = await sha256Hex(secret);
    const now = this.deps.clock.now();
    const nodeId = ulid();
    const credential = randomToken("llmgw_node_");
    const credentialHash = await sha256Hex(credential);
    await this.deps.store.write(async (tx) => {
      const [code] = await tx.select().from(joinCodes).where(eq(joinCodes.secretHash, hash));
      if (!code) throw new AppError("join_code_invalid");
      if (code.usedAt !== null) throw new AppError("join_code_used");
      if (code.expiresAt <= now) throw new AppError("join_code_expired");
      await tx.update(joinCodes).set({ usedAt: now, nodeId }).where(eq(joinCodes.id, code.id));
      const taken = new Set((await tx.select({ name: nodes.name }).from(nodes)).map((n) => n.name));
      for (let i = 2; taken.has(name); i++) name = `${asked}-${i}`;
      await tx.insert(nodes).values({
        id: nodeId,
        name,
        labels: code.labels,
        credentialHash,
        cordoned: false,
        draining: false,
        createdAt: now,
      });
    });
    return { nodeId, name, credential };
  }
}
