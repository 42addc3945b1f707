/**
 * A replica's smoothed time to first token (an exponentially weighted moving average). A value
 * not refreshed for `forgetAfterMs` is forgotten, so a replica once found slow is tried again
 * instead of being starved forever.
 */
export const ttftForgetAfterMs = 5 * 60_000;
const alpha = 0.3;

export class TtftAverage {
  #value = -1;
  #at = 0;

  add(ms: number, now: number): void {
    this.#value = this.#value < 0 || now - this.#at >= ttftForgetAfterMs
      ? ms
      : alpha * ms + (1 - alpha) * this.#value;
    this.#at = now;
  }

  /** The average, or undefined when never measured or forgotten. */
  value(now: number): number | undefined {
    if (this.#value < 0 || now - this.#at >= ttftForgetAfterMs) return undefined;
    return this.#value;
  }
}
