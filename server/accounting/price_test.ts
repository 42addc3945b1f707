import { assert, assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { openStore } from "../../db/store.ts";
import { BudgetBook, periodEnd, periodStart } from "./budgets.ts";
import { globMatch } from "./limits.ts";
import { cacheHitCost, cost } from "./price.ts";
import { formatReset, SlidingWindow } from "./window.ts";

Deno.test("costs round up, and cached prompt tokens are charged at their own rate, capped at the prompt", () => {
  const p = (prompt: number, completion: number, cached = 0) => ({
    promptPer1k: prompt,
    completionPer1k: completion,
    cachedPer1k: cached,
    cacheHitPer1k: 0,
  });
  assertEquals(cost(p(1000, 0), 1, 0, 0), 1);
  assertEquals(cost(p(1000, 3000), 1000, 0, 1000), 4000);
  assertEquals(cost(p(1000, 3000), 0, 0, 0), 0);
  assertEquals(cost(p(1000, 0, 100), 10_000, 9_000, 0), 1000 + 900);
  assertEquals(cost(p(100, 0, 10), 100, 500, 0), 1, "more cached than prompt is clamped");
  assertEquals(cost(p(1000, 0), 10_000, 9_000, 0), 10_000, "no cached rate: the prompt rate");
  assertEquals(cost(p(1, 1), 1, 0, 1), 2, "a tiny request is never free");
});

Deno.test("a sliding window weighs the previous minute by how much of it is still in view", () => {
  const w = new SlidingWindow();
  const t0 = 1_700_000_040_000 - (1_700_000_040_000 % 60_000);
  w.add(t0 + 50_000, 10);
  assertEquals(w.rate(t0 + 50_000), 10);
  assertEquals(Math.round(w.rate(t0 + 80_000) * 100) / 100, 6.67); // 10 × 40/60
  assertEquals(w.rate(t0 + 125_000), 0);
  w.add(t0 + 130_000, 5);
  assertEquals(w.waitFor(t0 + 130_000, 10, 1), 0);
  assert(w.waitFor(t0 + 130_000, 5, 1) > 0);
  assertEquals(formatReset(20), "20ms");
  assertEquals(formatReset(1000), "1s");
  assertEquals(formatReset(360_000), "6m0s");
  assertEquals(formatReset(1500), "1.5s");
});

Deno.test("model globs", () => {
  assert(globMatch("llama-*", "llama-3-8b"));
  assert(!globMatch("llama-*", "mistral"));
  assert(globMatch("qwen?", "qwen3"));
  assert(!globMatch("a.b", "axb"), "dots are literal");
});

Deno.test("budget periods run in UTC; catching up only raises a counter", async () => {
  const jan31 = Date.UTC(2026, 0, 31, 23, 59);
  assertEquals(periodStart("month", jan31), Date.UTC(2026, 0, 1));
  assertEquals(periodEnd("month", jan31), Date.UTC(2026, 1, 1));
  assertEquals(periodEnd("day", jan31), Date.UTC(2026, 1, 1));
  const store = await openStore(":memory:");
  const clock = new FakeClock(jan31);
  try {
    const book = new BudgetBook({ store, clock, logger: silentLogger });
    const mine = { kind: "project" as const, id: "mine" };
    const shared = { kind: "team" as const, id: "shared" };
    const theirs = { kind: "project" as const, id: "theirs" };
    book.add([mine], 900, 9);
    book.add([shared], 100, 1);
    const start = periodStart("day", jan31);
    book.raise(mine, "day", start, 400, 4);
    book.raise(shared, "day", start, 700, 7);
    book.raise(theirs, "day", start, 50, 1);
    assertEquals(book.spent(mine, "day").micros, 900);
    assertEquals(book.spent(shared, "day").micros, 700);
    assertEquals(book.spent(theirs, "day").micros, 50);
    clock.advance(2 * 60_000); // into February: a new day and a new month
    assertEquals(book.spent(mine, "day").micros, 0);
    assertEquals(book.spent(mine, "month").micros, 0);
  } finally {
    store.close();
  }
});

Deno.test("an answer from the answer cache costs its tokens at the cache price, rounded up; nothing at the default 0", () => {
  const p = { promptPer1k: 1000, completionPer1k: 2000, cachedPer1k: 0, cacheHitPer1k: 100 };
  assertEquals(cacheHitCost(p, 10, 5), 2);
  assertEquals(cacheHitCost(p, 1000, 1000), 200);
  assertEquals(cacheHitCost({ ...p, cacheHitPer1k: 0 }, 1000, 1000), 0);
});
