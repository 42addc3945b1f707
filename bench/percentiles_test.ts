import { assert, assertEquals, assertThrows } from "../tests/assert.ts";
import { percentile, summarize } from "./percentiles.ts";

Deno.test("nearest-rank percentiles are measured values, never interpolated", () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
  assertEquals(percentile(sorted, 50), 50);
  assertEquals(percentile(sorted, 95), 95);
  assertEquals(percentile(sorted, 99), 99);
  assertEquals(percentile(sorted, 100), 100);
  assertEquals(percentile(sorted, 0), 1);
  // With 10 samples p99 is the largest; with 3, p50 is the middle one.
  assertEquals(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99), 10);
  assertEquals(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), 5);
  assertEquals(percentile([10, 20, 30], 50), 20);
  assertEquals(percentile([7], 99), 7);
  assert(Number.isNaN(percentile([], 50)));
  assertThrows(() => percentile([1], 101), RangeError);
});

Deno.test("summaries sort numerically, leave the input alone and give none for no samples", () => {
  const samples = [100, 2, 30, 4, 5];
  const s = summarize(samples);
  assertEquals(s, { count: 5, min: 2, mean: 141 / 5, p50: 5, p95: 100, p99: 100, max: 100 });
  assertEquals(samples, [100, 2, 30, 4, 5]);
  assertEquals(summarize([]), null);
  const tail = summarize([...Array(990).fill(1), ...Array(10).fill(50)]);
  assertEquals([tail?.p50, tail?.p99, tail?.max], [1, 1, 50]);
  const tail2 = summarize([...Array(989).fill(1), ...Array(11).fill(50)]);
  assertEquals(tail2?.p99, 50);
});
