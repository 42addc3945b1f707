/**
 * Keeps the usage tables in shape: at start, sums rows that predate the per-day table; then every
 * hour deletes raw rows past `usage.retain_days` (the per-day sums stay, so summaries still cover
 * those days).
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { backfillDaily, pruneUsage } from "./daily.ts";

const everyMs = 3_600_000;

export class UsageRetention {
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      /** Read at each sweep, so a live change applies without a restart. */
      retainDays: () => number;
    },
  ) {}

  async start(): Promise<void> {
    const summed = await backfillDaily(this.deps.store);
    if (summed) this.deps.logger.info("usage summed per day for rows written before", { summed });
    await this.sweep();
    this.#timer = setInterval(() => void this.sweep(), everyMs);
  }

  async sweep(): Promise<number> {
    try {
      const n = await pruneUsage(this.deps.store, this.deps.clock.now(), this.deps.retainDays());
      if (n) this.deps.logger.info("old usage rows deleted; per-day sums kept", { rows: n });
      return n;
    } catch (e) {
      this.deps.logger.warn("usage retention sweep failed; will retry", { error: e as Error });
      return 0;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
