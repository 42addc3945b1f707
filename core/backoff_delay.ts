/**
 * Delay before restart attempt `attempt` (1-based): base × 2^(attempt-1), capped, then a random
 * point between half and all of it, so engines that crashed together do not restart in lockstep.
 */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const full = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return full / 2 + random() * (full / 2);
}

/** A sleep that `wake()` ends early, so stopping a replica does not wait out its backoff. */
export function wakeableSleep(ms: number): { done: Promise<void>; wake: () => void } {
  let wake = () => {};
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { done, wake };
}
