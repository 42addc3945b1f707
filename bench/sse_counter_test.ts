import { assertEquals } from "../tests/assert.ts";
import { SseCounter } from "./sse_counter.ts";

const chunk = (content: string) =>
  `data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
const usage =
  `data: {"id":"x","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}\n\n`;

Deno.test("counts content events, ends on [DONE] and reads usage from a usage-only chunk", () => {
  const c = new SseCounter();
  const added = c.feed(chunk("He") + chunk("llo") + chunk("!") + usage + "data: [DONE]\n\n");
  assertEquals(added, 3);
  assertEquals([c.contentEvents, c.done, c.completionTokens, c.error], [3, true, 3, null]);
});

Deno.test("events split anywhere across reads are counted once, when complete", () => {
  const text = chunk("a") + chunk("b") + ": keep-alive comment\n\n" + chunk("c") +
    "data: [DONE]\n\n";
  for (let size = 1; size <= 7; size++) {
    const c = new SseCounter();
    const seen: number[] = [];
    for (let i = 0; i < text.length; i += size) seen.push(c.feed(text.slice(i, i + size)));
    assertEquals(c.contentEvents, 3, `pieces of ${size}`);
    assertEquals(seen.reduce((a, b) => a + b, 0), 3);
    assertEquals(c.done, true);
  }
});

Deno.test("CRLF line ends, even split between reads, and event fields before data", () => {
  const text = (chunk("a") + "event: message\n" + chunk("b") + "data: [DONE]\n\n").replaceAll(
    "\n",
    "\r\n",
  );
  const c = new SseCounter();
  for (let i = 0; i < text.length; i += 3) c.feed(text.slice(i, i + 3));
  assertEquals([c.contentEvents, c.done], [2, true]);
});

Deno.test("a stream without [DONE] is not done; an error event is reported, not counted", () => {
  const c = new SseCounter();
  c.feed(chunk("a") + chunk("b") + 'data: {"error":{"message":"engine stopped"}}\n\n');
  assertEquals(c.contentEvents, 2);
  assertEquals(c.done, false);
  assertEquals(c.error, '{"error":{"message":"engine stopped"}}');
  // An unfinished event at the end is not counted until its blank line arrives.
  c.feed(chunk("c").slice(0, -1));
  assertEquals(c.contentEvents, 2);
  c.feed("\n");
  assertEquals(c.contentEvents, 3);
});
