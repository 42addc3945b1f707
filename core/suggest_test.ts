import { assertEquals } from "../tests/assert.ts";
import { closest, didYouMean, editDistance } from "./suggest.ts";

Deno.test("edit distance counts a swap of neighbours as one edit", () => {
  assertEquals(editDistance("", "abc"), 3);
  assertEquals(editDistance("keys", "keys"), 0);
  assertEquals(editDistance("kyes", "keys"), 1);
  assertEquals(editDistance("creat", "create"), 1);
  assertEquals(editDistance("revok", "remove"), 3);
});

Deno.test("closest: a near word or a unique prefix, nothing for a stranger", () => {
  const verbs = ["create", "list", "revoke"];
  assertEquals(closest("creat", verbs), ["create"]);
  assertEquals(closest("lsit", verbs), ["list"]);
  assertEquals(closest("REVOKE", verbs), ["revoke"]);
  assertEquals(closest("rev", verbs), ["revoke"]);
  assertEquals(closest("banana", verbs), []);
  assertEquals(closest("x", verbs), []);
  assertEquals(closest("expires-n", ["expires-in", "expires-at"]), ["expires-in"]);
  assertEquals(closest("expires", ["name", "expires-at", "expires-in"]), [
    "expires-at",
    "expires-in",
  ]);
  assertEquals(didYouMean("nme", ["name"], (f) => `--${f}`), "; did you mean '--name'?");
});
