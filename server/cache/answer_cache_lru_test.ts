/** The cache's memory alone: its size bounds, its order of use, a model's answers dropped, the similar index. */
import { assert, assertEquals } from "../../tests/assert.ts";
import { AnswerCache, type CachedAnswer, unitVector } from "./answer_cache.ts";

const answer = (bytes: number): CachedAnswer => ({
  shape: "json",
  body: new Uint8Array(bytes),
  contentType: "application/json",
  promptTokens: 1,
  completionTokens: 1,
  servedModel: "m",
  head: undefined,
});

const options = { maxBytes: 4000, maxEntryBytes: 1000, maxSimilar: 2, embeddingModel: "e" };

Deno.test("the least recently used answer goes first once the total is past its size; one over the per-entry cap is refused", () => {
  const c = new AnswerCache(options);
  assert(c.put("a", "m", answer(900)));
  assert(c.put("b", "m", answer(900)));
  assert(c.put("c", "m", answer(900)));
  assert(c.get("a"), "a used again: b is now the oldest");
  assert(c.put("d", "m", answer(900)));
  assertEquals([!!c.get("a"), !!c.get("b"), !!c.get("c"), !!c.get("d")], [true, false, true, true]);
  assert(c.bytes <= options.maxBytes);
  assertEquals(c.put("big", "m", answer(1001)), false);
  assertEquals(c.get("big"), undefined);
});

Deno.test("a model's answers are dropped together, others kept; the counts per model follow", () => {
  const c = new AnswerCache(options);
  c.put("a", "m1", answer(10));
  c.put("b", "m1", answer(10));
  c.put("c", "m2", answer(10));
  assertEquals(c.stats().get("m1")?.entries, 2);
  c.dropModel("m1");
  assertEquals([c.get("a"), c.get("b")], [undefined, undefined]);
  assert(c.get("c"));
  assertEquals(c.stats().has("m1"), false);
  assertEquals(c.stats().get("m2")?.entries, 1);
  assertEquals(c.size, 1);
});

Deno.test("similar: the nearest question of the same group at or above the threshold; the index is capped", () => {
  const c = new AnswerCache(options);
  const v = (...x: number[]) => unitVector(x)!;
  c.put("x", "m", answer(10), { group: "g", vector: v(1, 0, 0) });
  c.put("y", "m", answer(10), { group: "g", vector: v(0, 1, 0) });
  const near = c.nearest("g", v(1, 0.2, 0), 0.9);
  assertEquals(near?.entry.key, "x");
  assert(near!.similarity > 0.9 && near!.similarity < 1);
  assertEquals(c.nearest("g", v(1, 1, 0), 0.9), undefined, "both at 0.71");
  assertEquals(c.nearest("other", v(1, 0, 0), 0.5), undefined, "another group");
  // A third question with an embedding: the oldest with one goes (the cap is 2).
  c.put("z", "m", answer(10), { group: "g", vector: v(0, 0, 1) });
  assertEquals(c.get("y"), undefined);
  assertEquals(c.nearest("g", v(0, 1, 0), 0.9), undefined);
  assertEquals(c.nearest("g", v(0, 0, 1), 0.9)?.entry.key, "z");
});
