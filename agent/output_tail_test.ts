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

Deno.test("the output tail hides credential-looking values beyond the secrets it was given", () => {
  const tail = new OutputTail(["given-secret"]);
  tail.push("argv: llama-server --port 8080 --api-key hidden-one --ctx-size 2048\n");
  tail.push("argv: vllm --api-key=hidden-two --tokenizer Qwen/Qwen2.5\n");
  tail.push("request: Authorization: Bearer hidden-three-token\n");
  tail.push('settings: {"hf_token": "hidden-four", "model": "m"} HF_TOKEN=hidden-five\n');
  tail.push("pasted sk-llmgw-ABCDEFGHIJKLMNOPQRSTUVWX and given-secret\n");
  tail.push("print_info: EOS token = 2 '</s>' (kept: not a credential)\n");
  const text = tail.text();
  for (const s of ["hidden-", "ABCDEFGHIJKLMNOP", "given-secret"]) {
    assert(!text.includes(s), `${s} is hidden in:\n${text}`);
  }
  assert(text.includes("--ctx-size 2048"), text);
  assert(text.includes("--tokenizer Qwen/Qwen2.5"), text);
  assert(text.includes("EOS token = 2"), text);
  assertEquals(
    text.split("\n")[0],
    "argv: llama-server --port 8080 --api-key [redacted] --ctx-size 2048",
  );
});

Deno.test("the output tail gives its last n lines, notes in order, 500 lines at most", () => {
  const tail = new OutputTail();
  for (let i = 1; i <= 600; i++) tail.push(`line ${i}\n`);
  tail.push("half a li");
  tail.note("[llmgw] engine exited with code 1");
  assertEquals(tail.lines(3), ["line 600", "half a li", "[llmgw] engine exited with code 1"]);
  assertEquals(tail.lines().length, 500);
  assertEquals(tail.lines(1000).length, 500);
  assertEquals(tail.lines(0), []);
});
