/**
 * A sliding one-minute window: this minute's count plus the previous minute's, weighted by how
 * much of it is still in view. Cheap (two numbers per counter) and smooth at the minute's turn.
 */
export const windowMs = 60_000;

export class SlidingWindow {
  #start = 0;
  #cur = 0;
  #prev = 0;

  #roll(now: number): void {
    const start = now - (now % windowMs);
    if (start === this.#start) return;
    this.#prev = start - this.#start === windowMs ? this.#cur : 0;
    this.#cur = 0;
    this.#start = start;
  }

  rate(now: number): number {
    this.#roll(now);
    const seen = (now - this.#start) / windowMs;
    return this.#prev * (1 - seen) + this.#cur;
  }

  add(now: number, n: number): void {
    this.#roll(now);
    // A correction may be negative (the estimate was high); a count never goes below zero.
    this.#cur = Math.max(0, this.#cur + n);
  }

  /** How long until `n` more fit under `limit`, assuming nothing else arrives. */
  waitFor(now: number, limit: number, n: number): number {
    this.#roll(now);
    const intoMinute = now - this.#start;
    if (this.rate(now) + n <= limit) return 0;
    if (this.#prev > 0 && this.#cur + n <= limit) {
      const need = windowMs * (1 - (limit - this.#cur - n) / this.#prev);
      if (need <= windowMs) return Math.max(0, Math.ceil(need - intoMinute));
    }
    const toNext = windowMs - intoMinute;
    if (n > limit) return toNext + windowMs;
    if (this.#cur === 0) return toNext;
    const need = windowMs * (1 - (limit - n) / this.#cur);
    return toNext + Math.max(0, Math.ceil(need));
  }

  /** How long until the window is empty again: OpenAI's `x-ratelimit-reset-*`. */
  untilEmpty(now: number): number {
    this.#roll(now);
    const toNext = windowMs - (now - this.#start);
    if (this.#cur > 0) return toNext + windowMs;
    return this.#prev > 0 ? toNext : 0;
  }
}

/** A duration in OpenAI's header form: `20ms`, `1s`, `6m0s`, `1.5s`. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const totalS = Math.ceil(ms / 100) / 10;
  const m = Math.floor(totalS / 60);
  const s = Math.round((totalS - m * 60) * 10) / 10;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}
