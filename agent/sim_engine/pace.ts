/**
 * Token pacing by wall clock. Timers cannot fire every 0.2 ms, so instead of sleeping per token
 * the pacer works out how many tokens are due since the start and releases them together; a late
 * timer then catches up rather than slowing the rate.
 */

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export class Pacer {
  readonly #start = performance.now();
  #released = 0;

  constructor(readonly tokensPerSecond: number) {}

  #due(): number {
    const elapsed = performance.now() - this.#start;
    return Math.floor((elapsed * this.tokensPerSecond) / 1000) - this.#released;
  }

  /** Waits until at least one token is due and returns how many are, all counted as released. */
  async next(signal: AbortSignal): Promise<number> {
    let due = this.#due();
    if (due < 1) {
      const nextAt = ((this.#released + 1) * 1000) / this.tokensPerSecond;
      const wait = nextAt - (performance.now() - this.#start);
      // Never below 1 ms: a zero timeout would spin the event loop at high rates.
      await sleep(Math.max(1, Math.ceil(wait)), signal);
      due = Math.max(1, this.#due());
    }
    this.#released += due;
    return due;
  }
}
