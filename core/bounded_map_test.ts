import { assertEquals } from "../tests/assert.ts";
import { BoundedMap } from "./bounded_map.ts";

Deno.test("a bounded map past its capacity lets go of the entry touched longest ago, one at a time", () => {
  const m = new BoundedMap<string, number>(3);
  m.set("a", 1);
  m.set("b", 2);
  m.set("c", 3);
  m.set("a", 4);
  m.set("d", 5);
  assertEquals(m.size, 3);
  assertEquals([m.get("a"), m.get("b"), m.get("c"), m.get("d")], [4, undefined, 3, 5]);
});
