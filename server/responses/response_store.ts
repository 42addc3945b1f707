/**
 * The kept responses of /v1/responses, per API key, for `previous_response_id`, retrieve,
 * input_items and delete. Another key's response reads as absent, never as forbidden, so an id
 * says nothing about whether it exists elsewhere.
 */
import { and, eq, isNotNull, lt } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { storedResponses } from "../../db/schema.ts";

type Json = Record<string, unknown>;

export interface StoredResponse {
  response: Json;
  input: Json[];
  context: Json[];
  /** Set while a background response runs (server/responses/background.ts). */
  leaseUntil?: number | null;
}

export class ResponseStore {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Read per write: a changed setting applies to the next response kept. */
    private readonly retention: { readonly responsesRetentionDays: number },
  ) {}

  async put(keyId: string, id: string, kept: StoredResponse): Promise<void> {
    const now = this.clock.now();
    const expiresAt = now + this.retention.responsesRetentionDays * 86_400_000;
    await this.store.write(async (tx) => {
      await tx.insert(storedResponses)
        .values({ id, keyId, createdAt: now, expiresAt, ...kept })
        .onConflictDoUpdate({ target: storedResponses.id, set: { ...kept } });
      // Sweeping on write keeps the table bounded without a loop of its own.
      await tx.delete(storedResponses).where(lt(storedResponses.expiresAt, now));
    });
  }

  async get(keyId: string, id: string): Promise<StoredResponse | undefined> {
    const [row] = await this.store.db.select().from(storedResponses)
      .where(and(eq(storedResponses.id, id), eq(storedResponses.keyId, keyId)));
    if (!row || row.expiresAt < this.clock.now()) return undefined;
    return {
      response: row.response,
      input: row.input,
      context: row.context,
      leaseUntil: row.leaseUntil,
    };
  }

  /**
   * Ends a running background response with `response` (completed, failed, cancelled), only if
   * it still runs: whoever ends it first wins, so a cancel is never overwritten by the answer.
   * `onlyExpired`: only if its lease ran out (its control plane is gone). Whether it ended it.
   */
  async end(id: string, response: Json, onlyExpired = false): Promise<boolean> {
    const running = onlyExpired
      ? lt(storedResponses.leaseUntil, this.clock.now())
      : isNotNull(storedResponses.leaseUntil);
    return await this.store.write(async (tx) => {
      const ended = await tx.update(storedResponses).set({ response, leaseUntil: null })
        .where(and(eq(storedResponses.id, id), running))
        .returning({ id: storedResponses.id });
      return ended.length > 0;
    });
  }

  /**
   * Renews a running response's lease (and its object, when given); false when it no longer
   * runs (cancelled, from this control plane or another).
   */
  async renew(id: string, leaseUntil: number, response?: Json): Promise<boolean> {
    return await this.store.write(async (tx) => {
      const renewed = await tx.update(storedResponses)
        .set(response ? { leaseUntil, response } : { leaseUntil })
        .where(and(eq(storedResponses.id, id), isNotNull(storedResponses.leaseUntil)))
        .returning({ id: storedResponses.id });
      return renewed.length > 0;
    });
  }

  /** Whether there was one to delete. */
  async delete(keyId: string, id: string): Promise<boolean> {
    return await this.store.write(async (tx) => {
      const gone = await tx.delete(storedResponses)
        .where(and(eq(storedResponses.id, id), eq(storedResponses.keyId, keyId)))
        .returning({ id: storedResponses.id });
      return gone.length > 0;
    });
  }
}
