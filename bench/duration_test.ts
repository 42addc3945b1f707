import { assertEquals, assertThrows } from "../tests/assert.ts";
import { parseDuration } from "./duration.ts";

Deno.test("durations: ms, s, m, and a bare number is seconds", () => {
  assertEquals(parseDuration("500ms"), 500);
  assertEquals(parseDuration("10s"), 10_000);
  assertEquals(parseDuration("1.5s"), 1_500);
  assertEquals(parseDuration("2m"), 120_000);
  assertEquals(parseDuration("3"), 3_000);
  assertThrows(() => parseDuration("ten seconds"), TypeError);
  assertThrows(() => parseDuration("-1s"), TypeError);
  assertThrows(() => parseDuration("5h"), TypeError);
});
