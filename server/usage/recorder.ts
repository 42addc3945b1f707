/**
 * Usage rows are collected in memory and written in batches by a timer, so the request path
 * never waits on the store. `close()` writes what is left; a failed batch is kept and retried.
 */
import { newUlid } from "../../core/ulid.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { addToDaily } from "./daily.ts";
import { insertUsageRows } from "./insert_usage_rows.ts";
import { usage } from "../../db/schema.ts";

export type UsageRow = Omit<typeof usage.$inferInsert, "id">;

export interface UsageSink {
  record(row: UsageRow): void;
}

/** Past this many waiting rows (the store is down for a long time) the oldest are dropped and counted. */
const maxPending = 100_000;

export class UsageRecorder implements UsageSink {
  #pending: (typeof usage.$inferInsert)[] = [];
  /** When each pending row was recorded (performance.now()), for the writer's lag. */
  #recordedAt: number[] = [];
  #timer: ReturnType<typeof setInterval> | undefined;
  #flushing: Promise<void> | undefined;
  dropped = 0;

  constructor(
    private readonly deps: {
      store: Store;
      logger: Logger;
      flushMs: number;
      batchSize: number;
    },
  ) {
    this.#timer = setInterval(() => void this.flush(), deps.flushMs);
  }

  record(row: UsageRow): void {
    this.#pending.push({ id: newUlid(row.at), ...row });
    this.#recordedAt.push(performance.now());
    if (this.#pending.length > maxPending) {
      this.dropped += this.#pending.length - maxPending;
      this.#pending.splice(0, this.#pending.length - maxPending);
      this.#recordedAt.splice(0, this.#recordedAt.length - maxPending);
    }
  }

  get pending(): number {
    return this.#pending.length;
  }

  /** How long the oldest row not yet written has waited, in ms; null when none waits. */
  get oldestPendingMs(): number | null {
    const first = this.#recordedAt[0];
    return first === undefined ? null : performance.now() - first;
  }

  /** Writes everything waiting; concurrent calls share one run. */
  flush(): Promise<void> {
    this.#flushing ??= this.#drain().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  async #drain(): Promise<void> {
    for (let first = true; this.#pending.length > 0; first = false) {
      // The store runs on the request thread: between batches, requests waiting to be served go
      // first, so a burst of rows delays each of them by one small batch at most, not by all.
      if (!first) await new Promise((r) => setTimeout(r, 0));
      const batch = this.#pending.splice(0, this.deps.batchSize);
      const times = this.#recordedAt.splice(0, batch.length);
      try {
        await this.deps.store.write(async (tx) => {
          await insertUsageRows(this.deps.store, tx, batch);
          // The per-day sums move with the rows, in the same transaction.
          await addToDaily(tx, batch);
        });
      } catch (e) {
        this.#pending.unshift(...batch);
        this.#recordedAt.unshift(...times);
        this.deps.logger.error("usage batch not written; will retry", {
          rows: batch.length,
          error: e,
        });
        return;
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
