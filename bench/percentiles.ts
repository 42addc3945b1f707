/**
 * Latency summaries from every sample, not from buckets: a run holds at most a few hundred
 * thousand numbers, so sorting them once is cheaper than being approximately right.
 */

export interface Summary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * The nearest-rank percentile of an ascending array: the smallest sample that at least p% of
 * samples are at or below. It is always a value that was measured, never an interpolation.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Summary of samples in any order; null when there are none. The input is not modified. */
export function summarize(samples: readonly number[]): Summary | null {
  if (samples.length === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    min: sorted[0]!,
    mean: sum / sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1]!,
  };
}
