import { assert, assertEquals } from "../../tests/assert.ts";
import {
  estimateMemory,
  formatBytes,
  GiB,
  kvPerToken,
  perCardNeed,
  poolThatFits,
} from "./memory_estimate.ts";

// Llama-3.3-70B: 80 layers, 8 KV heads of 128, 141 GB of bf16 weights (docs/large-models).
const llama70 = { weightsBytes: 141e9, layers: 80, kvHeads: 8, headDim: 128 };

Deno.test("estimate: KV cache = 2 × layers × KV heads × head width × bytes × tokens", () => {
  assertEquals(kvPerToken(llama70).bytes, 2 * 80 * 8 * 128 * 2);
  const e = estimateMemory({ facts: llama70, engine: "vllm", device: "gpu", poolTokens: 1000 });
  // "context ≈ 0.31 GB per 1000 tokens"
  assertEquals((e.context / GiB).toFixed(2), "0.31");
  assertEquals(e.engine, 2 * GiB + 141e9 / 50);
  assertEquals(e.total, e.weights + e.context + e.engine);
  assertEquals(e.guessed, []);
  const card = perCardNeed(e, 4, "vllm");
  assertEquals((card.weights / GiB).toFixed(1), "32.8");
  assert(card.total < 0.9 * 80 * GiB);
});

Deno.test("estimate: an encoder on text-embeddings-inference counts no KV cache", () => {
  const bge = { weightsBytes: 1.3e9, layers: 24, kvHeads: 16, headDim: 64 };
  const tei = estimateMemory({ facts: bge, engine: "tei", device: "gpu", poolTokens: 8192 * 16 });
  assertEquals(tei.context, 0);
  assertEquals(tei.total, 1.3e9 + 512 * 1024 ** 2);
  const vllm = estimateMemory({ facts: bge, engine: "vllm", device: "gpu", poolTokens: 8192 * 16 });
  assert(vllm.context > 0);
});

Deno.test("estimate: CPU is weights × 1.5 + 2 GB, raised for a long pool", () => {
  const facts = { weightsBytes: 4 * GiB, layers: 32, kvHeads: 8, headDim: 128 };
  const small = estimateMemory({ facts, engine: "llamacpp", device: "cpu", poolTokens: 4096 });
  assertEquals(small.total, 8 * GiB);
  assertEquals(small.weights + small.context + small.engine, small.total);
  const long = estimateMemory({ facts, engine: "llamacpp", device: "cpu", poolTokens: 131072 });
  assertEquals(long.total, 4 * GiB + long.context + 2 * GiB);
});

Deno.test("estimate: never blank; guesses are named", () => {
  const none = estimateMemory({ facts: {}, engine: "llamacpp", device: "cpu", poolTokens: 4096 });
  assertEquals(none.total, 2 * GiB + none.context);
  assert(none.total > 0);
  assertEquals(none.guessed.length, 2);
  const w = estimateMemory({
    facts: { weightsBytes: 141e9 },
    engine: "vllm",
    device: "gpu",
    poolTokens: 1000,
  });
  assert(Math.abs(w.context - 0.33e9) < 0.05e9, "guessed from the weights, near the real figure");
  assert(w.guessed[0]!.includes("KV cache per token"));
});

Deno.test("estimate: the pool that fits a card", () => {
  const facts = { weightsBytes: 16 * GiB, layers: 32, kvHeads: 8, headDim: 128 };
  const e = estimateMemory({ facts, engine: "llamacpp", device: "gpu", poolTokens: 131072 });
  const tokens = poolThatFits(e, 1, "llamacpp", 0.9 * 24 * GiB);
  // 21.6 GB usable − 16 GB − 0.5 GB leaves 5.1 GB at 128 KB a token.
  assertEquals(tokens, Math.floor((0.9 * 24 * GiB - 16.5 * GiB) / (128 * 1024)));
  assertEquals(poolThatFits(e, 1, "llamacpp", 10 * GiB), 0);
  assertEquals(formatBytes(1.5 * GiB), "1.5 GB");
  assertEquals(formatBytes(512 * 1024 * 1024), "512 MB");
});
