/**
 * Single sign-on flows in progress, kept in the store so a sign-in started on one control plane
 * finishes on another. Taking a flow deletes it in the same statement: a state is used once,
 * even when two control planes are handed it at the same moment.
 */
import { asc, count, eq, inArray, lte } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { signInFlows } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { sha256Hex } from "./secrets.ts";

const maxFlows = 10_000;

export interface PendingFlow {
  verifier: string;
  nonce: string;
}

export class SignInFlows {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /** Keeps a new flow for `ttlMs`; flows past their time are dropped on the way. */
  async put(state: string, flow: PendingFlow, ttlMs: number): Promise<void> {
    const now = this.deps.clock.now();
    const stateHash = await sha256Hex(state);
    await this.deps.store.write(async (tx) => {
      await tx.delete(signInFlows).where(lte(signInFlows.expiresAt, now));
      // Starting a sign-in needs no credential: bound the flows so a flood cannot fill the store.
      const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(signInFlows);
      if (n >= maxFlows) {
        const oldest = tx.select({ h: signInFlows.stateHash }).from(signInFlows)
          .orderBy(asc(signInFlows.expiresAt)).limit(n - maxFlows + 1);
        await tx.delete(signInFlows).where(inArray(signInFlows.stateHash, oldest));
      }
      await tx.insert(signInFlows).values({ stateHash, ...flow, expiresAt: now + ttlMs });
    });
  }

  /** The flow of `state`, removed; undefined when unknown, used or expired. */
  async take(state: string): Promise<PendingFlow | undefined> {
    const stateHash = await sha256Hex(state);
    const [row] = await this.deps.store.write((tx) =>
      tx.delete(signInFlows).where(eq(signInFlows.stateHash, stateHash)).returning()
    );
    if (!row || row.expiresAt <= this.deps.clock.now()) return undefined;
    return { verifier: row.verifier, nonce: row.nonce };
  }
}
