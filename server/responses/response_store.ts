/**
 * The kept responses of /v1/responses, per API key, for `previous_response_id`, retrieve,
 * input_items and delete. Another key's response reads as absent, never as forbidden, so an id
 * says nothing about whether it exists elsewhere.
 */
import { and, eq, lt } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { storedResponses } from "../../db/schema.ts";

type Json = Record<string, unknown>;

export interface StoredResponse {
  response: Json;
  input: Json[];
  context: Json[];
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
    return { response: row.response, input: row.input, context: row.context };
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
