import { assertEquals } from "../../tests/assert.ts";
import { bucketMs, keptMs, RecentSamples } from "./recent_samples.ts";

Deno.test("recent samples: ten-second buckets, an hour kept, per card and per model", () => {
  let now = 1_000_000_000;
  const s = new RecentSamples(() => now);
  s.request("m", 100, 2);
  s.request("m", 300, 5);
  s.request("m", null, 1);
  s.cards("n1", [{ index: 0, utilizationPercent: 40, memoryUsedBytes: 1, memoryTotalBytes: 4 }]);
  now += bucketMs;
  s.request("m", null, 0);
  s.cards("n1", [{ index: 0, utilizationPercent: 90, powerDrawW: 300 }]);
  assertEquals(s.modelSeries("m").map((x) => [x.requestsPerS, x.ttftMs, x.queue]), [
    [0.3, 200, 5],
    [0.1, null, 0],
  ]);
  assertEquals(s.cardSeries("n1", 0).map((x) => [x.util, x.memory, x.powerW]), [
    [40, 0.25, null],
    [90, null, 300],
  ]);
  // Past an hour, the first buckets are gone; the ring never holds more than an hour of them.
  for (let i = 0; i < 400; i++) {
    now += bucketMs;
    s.request("m", 10, 0);
  }
  const kept = s.modelSeries("m");
  assertEquals(kept.length <= keptMs / bucketMs, true);
  assertEquals(kept.every((x) => x.at >= now - keptMs), true);
  assertEquals(s.cardSeries("n1", 0), []);
  assertEquals(s.modelSeries("other"), []);
});
