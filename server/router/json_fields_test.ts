import { assertEquals } from "../../tests/assert.ts";
import { cachedPromptTokens, readUsage } from "./json_fields.ts";

Deno.test("cached prompt tokens: OpenAI's count, then llama.cpp's cache_n, then prompt - prompt_n", () => {
  const usage = { prompt_tokens: 1118, completion_tokens: 4 };
  assertEquals(
    cachedPromptTokens({
      usage: { ...usage, prompt_tokens_details: { cached_tokens: 1024 } },
      timings: { cache_n: 5, prompt_n: 1 },
    }),
    1024,
  );
  assertEquals(cachedPromptTokens({ usage, timings: { cache_n: 1100, prompt_n: 18 } }), 1100);
  // The 2025-02 llama.cpp build: no cache_n, and tokens_cached is the slot's whole past.
  assertEquals(cachedPromptTokens({ usage, timings: { prompt_n: 1 }, tokens_cached: 1122 }), 1117);
  assertEquals(cachedPromptTokens({ usage, timings: { prompt_n: 1118 } }), 0);
  assertEquals(cachedPromptTokens({ usage }), undefined, "no timings: unknown");
  assertEquals(cachedPromptTokens({ usage, tokens_cached: 1122 }), undefined);
  assertEquals(readUsage({ usage, timings: { prompt_n: 1 } }), {
    promptTokens: 1118,
    completionTokens: 4,
    cachedTokens: 1117,
  });
});
