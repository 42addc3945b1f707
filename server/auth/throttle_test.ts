import { assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { Throttle } from "./throttle.ts";

const options = { free: 2, baseMs: 1_000, maxMs: 8_000, forgetMs: 60_000 };

Deno.test("a throttle's waits grow from the first failure past the free ones, up to a cap, and are forgotten", () => {
  const clock = new FakeClock();
  const t = new Throttle({ clock, ...options, capacity: 100 });
  t.fail("a");
  t.fail("a");
  const waits = [t.waitFor("a")];
  for (let i = 0; i < 5; i++) {
    clock.advance(waits.at(-1)!);
    t.fail("a");
    waits.push(t.waitFor("a"));
  }
  assertEquals(waits, [1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  clock.advance(60_000);
  assertEquals(t.waitFor("a"), 0);
});

Deno.test("a full throttle table lets go of its stalest name only, not of everyone", () => {
  const clock = new FakeClock();
  const t = new Throttle({ clock, ...options, capacity: 3 });
  for (const name of ["a", "b", "c"]) t.fail(name), t.fail(name);
  t.fail("a");
  t.fail("d");
  assertEquals(t.size, 3);
  // b was touched longest ago; a (touched again), c and d are still known.
  assertEquals(t.waitFor("b"), 0);
  assertEquals([t.waitFor("a") > 0, t.waitFor("c") > 0], [true, true]);
  t.fail("d");
  assertEquals(t.waitFor("d") > 0, true);
});
