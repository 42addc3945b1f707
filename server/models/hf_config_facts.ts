/**
 * `factsFromHfConfig(config)`: a safetensors model's shape from its `config.json` (the
 * Transformers config every such set carries), as the memory estimate, the tensor-parallel rule
 * and the plan take it. Pure; a field that is missing or not a positive whole number is left out,
 * and the estimate then says it guessed. Multimodal configs keep the language model's figures in
 * `text_config` (Llava, Qwen2-VL, Gemma 3); those win where present.
 */
import { isRecord } from "../router/json_fields.ts";
import type { ModelFacts } from "./memory_estimate.ts";

export function factsFromHfConfig(config: unknown): ModelFacts {
  if (!isRecord(config)) return {};
  const text = isRecord(config.text_config) ? { ...config, ...config.text_config } : config;
  const whole = (k: string) => {
    const v = text[k];
    return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
  };
  const f: ModelFacts = {};
  const layers = whole("num_hidden_layers") ?? whole("n_layer") ?? whole("num_layers");
  const heads = whole("num_attention_heads") ?? whole("n_head");
  // Without a KV head count the model is plain multi-head attention: one KV head per head.
  const kvHeads = whole("num_key_value_heads") ?? whole("n_head_kv") ?? heads;
  const hidden = whole("hidden_size") ?? whole("n_embd") ?? whole("d_model");
  const headDim = whole("head_dim") ?? (hidden && heads ? hidden / heads : undefined);
  const trained = whole("max_position_embeddings") ?? whole("n_positions");
  const experts = whole("num_local_experts") ?? whole("num_experts") ?? whole("n_routed_experts");
  if (layers) f.layers = layers;
  if (heads) f.heads = heads;
  if (kvHeads) f.kvHeads = kvHeads;
  if (hidden) f.hiddenSize = hidden;
  if (headDim && Number.isInteger(headDim)) f.headDim = headDim;
  if (trained) f.trainedContext = trained;
  if (experts) f.experts = experts;
  const dtype = text.torch_dtype ?? text.dtype;
  if (typeof dtype === "string" && dtype) f.dtype = dtype;
  const arch = Array.isArray(config.architectures) ? config.architectures[0] : config.model_type;
  if (typeof arch === "string" && arch) f.architecture = arch;
  return f;
}

/** Bytes per element of a config's dtype; undefined for one not known here. */
export function dtypeBytes(dtype: string | undefined): number | undefined {
  switch (dtype?.replace(/^torch\./, "")) {
    case "float32":
    case "fp32":
      return 4;
    case "float16":
    case "fp16":
    case "half":
    case "bfloat16":
    case "bf16":
      return 2;
    default:
      return undefined;
  }
}
