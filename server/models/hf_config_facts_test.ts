import { assertEquals } from "../../tests/assert.ts";
import { factsFromHfConfig } from "./hf_config_facts.ts";
import { kvPerToken } from "./memory_estimate.ts";

Deno.test("config.json: a multimodal model's text_config wins; MHA without KV heads has one per head", () => {
  const gemma = factsFromHfConfig({
    architectures: ["Gemma3ForConditionalGeneration"],
    text_config: {
      num_hidden_layers: 34,
      num_attention_heads: 8,
      num_key_value_heads: 4,
      head_dim: 256,
      hidden_size: 2560,
      max_position_embeddings: 131072,
    },
    torch_dtype: "bfloat16",
  });
  assertEquals(gemma, {
    architecture: "Gemma3ForConditionalGeneration",
    layers: 34,
    heads: 8,
    kvHeads: 4,
    hiddenSize: 2560,
    headDim: 256,
    trainedContext: 131072,
    dtype: "bfloat16",
  });
  const gpt2 = factsFromHfConfig({ model_type: "gpt2", n_layer: 12, n_head: 12, n_embd: 768 });
  assertEquals([gpt2.kvHeads, gpt2.headDim, gpt2.architecture], [12, 64, "gpt2"]);
  assertEquals(factsFromHfConfig("not an object"), {});
  // The KV cache takes the model's dtype: float32 doubles it against bf16.
  const f = { layers: 4, kvHeads: 3, headDim: 64 };
  assertEquals(kvPerToken({ ...f, dtype: "float32" }).bytes, 2 * 4 * 3 * 64 * 4);
  assertEquals(kvPerToken({ ...f, dtype: "bfloat16" }).bytes, 2 * 4 * 3 * 64 * 2);
});
