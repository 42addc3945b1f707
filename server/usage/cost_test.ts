import { assertEquals } from "../../tests/assert.ts";
import { costMicros } from "./cost.ts";

const price = (prompt: number, completion: number, cached = 0) => ({
  pricePrompt: prompt,
  priceCompletion: completion,
  pricePromptCached: cached,
});

Deno.test("cost rounds up, so tiny requests are never free", () => {
  assertEquals(costMicros(price(1000, 0), 1, 0, 0), 1);
  assertEquals(costMicros(price(1, 1), 1, 0, 1), 2);
  assertEquals(costMicros(price(1000, 3000), 1000, 0, 1000), 4000);
  assertEquals(costMicros(price(1000, 3000), 0, 0, 0), 0);
});

Deno.test("cached tokens are charged at the cached price, capped at the prompt", () => {
  assertEquals(costMicros(price(1000, 0, 100), 10_000, 9_000, 0), 1000 + 900);
  assertEquals(costMicros(price(1000, 0, 100), 100, 500, 0), 10);
  // Without a cached price they cost as prompt tokens.
  assertEquals(costMicros(price(1000, 0), 10_000, 9_000, 0), 10_000);
});
