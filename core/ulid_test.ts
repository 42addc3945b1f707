import { decodeTime } from "ulid";
import { assert, assertEquals, assertMatch } from "../tests/assert.ts";
import { newUlid } from "./ulid.ts";

Deno.test("ULIDs: Crockford base32, the time they were made, unique", () => {
  const at = Date.UTC(2026, 10, 30, 9, 0, 0, 123);
  const id = newUlid(at);
  assertMatch(id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  assertEquals(decodeTime(id), at);
  const seen = new Set<string>();
  for (let i = 0; i < 100_000; i++) seen.add(newUlid(at));
  assertEquals(seen.size, 100_000);
  // Later ids sort after earlier ones.
  assert(newUlid(at) < newUlid(at + 1));
  assertEquals(decodeTime(newUlid(2 ** 48 - 1)), 2 ** 48 - 1);
});

Deno.test("ULIDs: every random character is used", () => {
  const counts = new Map<string, number>();
  for (let i = 0; i < 20_000; i++) {
    for (const ch of newUlid().slice(10)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  assertEquals(counts.size, 32);
  // 320,000 characters over 32 symbols: 10,000 each, give or take a few hundred.
  for (const [ch, n] of counts) assert(n > 9_000 && n < 11_000, `${ch}: ${n}`);
});
