import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { OutputTail } from "./output_tail.ts";

Deno.test("the output tail keeps the last lines, joins split lines and removes secrets", () => {
  const tail = new OutputTail(["s3cret"], 3, 1000);
  tail.push("one\ntwo\nthr");
  tail.push("ee with s3c");
  tail.push("ret inside\nfour\nfive (unfinished)");
  assertEquals(tail.text(), "three with [redacted] inside\nfour\nfive (unfinished)");
});

Deno.test("the output tail is bounded in bytes even for one endless line", () => {
  const tail = new OutputTail([], 200, 100);
  for (let i = 0; i < 50; i++) tail.push("x".repeat(30));
  assert(tail.text().length <= 200);
  for (let i = 0; i < 50; i++) tail.push("line\n");
  assert(tail.text().length <= 100);
  assert(tail.text().endsWith("line"));
});
