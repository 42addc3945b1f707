import { assertEquals } from "../../../tests/assert.ts";
import { newLines } from "./model_logs.ts";

Deno.test("model logs --follow prints only what a later window adds past the overlap", () => {
  assertEquals(newLines(["a", "b", "c"], ["b", "c", "d", "e"]), ["d", "e"]);
  assertEquals(newLines(["a", "b", "c"], ["a", "b", "c"]), []);
  // The window moved past everything seen (a burst longer than it): all of it is new.
  assertEquals(newLines(["a", "b"], ["x", "y"]), ["x", "y"]);
  assertEquals(newLines([], ["x"]), ["x"]);
  // A repeated line is matched by the longest overlap, not the first equal line.
  assertEquals(newLines(["x", "ok", "ok"], ["ok", "ok", "ok"]), ["ok"]);
});
