import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { createEngine } from "./engine.ts";
import { countTokens, prompts, tokenStream } from "./generate.ts";
import { Choice, runJob } from "./inference.ts";

function take(seed: number, n: number): string[] {
  const it = tokenStream(seed);
  return Array.from({ length: n }, () => it.next().value);
}

Deno.test("token streams are a pure function of the seed", () => {
  assertEquals(take(42, 50), take(42, 50));
  assert(take(42, 50).join("") !== take(43, 50).join(""));
  assertEquals(countTokens(take(7, 40).join("")), 40);
});

Deno.test("token counts are words plus punctuation, and prompts at least one", () => {
  assertEquals(countTokens("Hello, world!"), 4);
  assertEquals(countTokens(""), 0);
  assertEquals(prompts(""), [{ key: "", tokens: 1 }]);
  assertEquals(prompts([1, 2, 3]).map((p) => p.tokens), [3]);
  assertEquals(prompts([[1, 2], [3]]).map((p) => p.tokens), [2, 1]);
});

Deno.test("a stop string spanning tokens is never partly handed out", () => {
  const full = take(9, 60).join("");
  // Straddle a token boundary: the end of one word, the space, the start of the next.
  const boundary = full.indexOf(" ", 40);
  const stop = full.slice(boundary - 3, boundary + 4);
  const cut = full.slice(0, full.indexOf(stop));
  // One token per step, as at a low rate, so held-back text really is held across steps.
  const choice = new Choice(9, [stop], 60);
  const pieces: string[] = [];
  while (!choice.finish) {
    choice.advance(1);
    pieces.push(choice.take());
  }
  // Pieces cannot be taken back, so had part of the stop gone out the joined text would be longer.
  assertEquals(pieces.join(""), cut);
  assertEquals(choice.finish, "stop");
  assert(pieces.filter((p) => p === "").length > 0, "nothing was ever held back");
});

Deno.test("a run without stops streams the whole budget and ends on length", async () => {
  const engine = createEngine({ tokensPerSecond: 100_000 });
  const job = { promptTokens: 1, seeds: [9], maxTokens: 40, stop: [] };
  let text = "";
  const finishes: string[] = [];
  for await (const ev of runJob(engine, job, new AbortController().signal)) {
    if (ev.type === "delta") text += ev.text;
    if (ev.type === "finish") finishes.push(ev.reason);
  }
  assertEquals(text, take(9, 40).join(""));
  assertEquals(finishes, ["length"]);
});

Deno.test("the context size bounds generation", async () => {
  const engine = createEngine({ tokensPerSecond: 100_000, contextPerSlot: 10 });
  let tokens = -1;
  const job = { promptTokens: 7, seeds: [1], maxTokens: 50, stop: [] };
  for await (const ev of runJob(engine, job, new AbortController().signal)) {
    if (ev.type === "end") tokens = ev.completionTokens;
  }
  assertEquals(tokens, 3);
});
