/** Counts failures per key in a fixed window; past the allowance, attempts are refused until it ends. */
import type { Clock } from "../../core/clock.ts";

export class Throttle {
  readonly #windows = new Map<string, { since: number; count: number }>();

  constructor(private readonly deps: { clock: Clock; max: number; windowMs: number }) {}

  /** Milliseconds to wait before `key` may try again; 0 when it may try now. */
  waitFor(key: string): number {
    const w = this.#windows.get(key);
    if (!w) return 0;
    const left = w.since + this.deps.windowMs - this.deps.clock.now();
    if (left <= 0) {
      this.#windows.delete(key);
      return 0;
    }
    return w.count >= this.deps.max ? left : 0;
  }

  fail(key: string): void {
    const now = this.deps.clock.now();
    let w = this.#windows.get(key);
    if (!w || now - w.since >= this.deps.windowMs) {
      if (this.#windows.size > 50_000) this.#windows.clear();
      w = { since: now, count: 0 };
      this.#windows.set(key, w);
    }
    w.count++;
  }

  clear(key: string): void {
    this.#windows.delete(key);
  }
}
