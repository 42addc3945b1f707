/**
 * How much memory a replica needs, split into weights, context (KV cache) and engine, in bytes.
 * Pure. An estimate is never blank: missing figures are guessed and the guess is named in
 * `guessed` (a blank once put a 4.7 GB model on a 7.9 GB machine).
 *
 * GPU: weights + KV cache + engine overhead, where KV = 2 (K and V) × layers × KV heads × head
 * width × bytes per element (2: f16) × tokens in the pool (context × slots). Overhead, from
 * each engine's traits (core/engines/engine_traits.ts): vLLM 2 GiB + 1/50 of the weights,
 * llama.cpp 512 MiB, sim 64 MiB.
 * A simulated engine: the weights its file's header names (none when unknown) + 64 MiB, on either device and with
 * no KV cache. It loads nothing, but standing in for an engine that would lets tests and demos
 * fill a card with it (a sparse file with a GGUF header is enough).
 * CPU: weights × 1.5 + 2 GiB, raised to weights + KV + 2 GiB when a long pool needs more (the
 * serve form's rule; the raise keeps a small model with a huge pool from being under-sized).
 */
import { type EngineName, engineTraits } from "../../core/engines/engine_traits.ts";
import { dtypeBytes } from "./hf_config_facts.ts";

export const GiB = 1024 ** 3;
export const MiB = 1024 ** 2;

/** What is known about a model's shape; any field may be missing. */
export interface ModelFacts {
  /** Bytes of weights (GGUF tensor data; sum of safetensors files). */
  weightsBytes?: number;
  layers?: number;
  /** Attention heads (query heads); KV heads may be fewer (grouped-query attention). */
  heads?: number;
  kvHeads?: number;
  headDim?: number;
  hiddenSize?: number;
  /** The weights' element type as config.json names it ("bfloat16"); the KV cache takes it. */
  dtype?: string;
  trainedContext?: number;
  experts?: number;
  architecture?: string;
  /** The GGUF says it pools: an embedding model. */
  pooling?: string;
}

export interface MemoryNeed {
  weights: number;
  context: number;
  engine: number;
  total: number;
}

export interface Estimate extends MemoryNeed {
  device: "gpu" | "cpu";
  /** KV cache bytes per token of pool. */
  perToken: number;
  poolTokens: number;
  /** Figures that were guessed, in words, e.g. "KV size per token (layers unknown)". */
  guessed: string[];
}

export interface EstimateInput {
  facts: ModelFacts;
  engine: EngineName;
  device: "gpu" | "cpu";
  /** Tokens in the KV pool: context length × slots. */
  poolTokens: number;
  /** Bytes per KV element; default: the model's dtype (config.json), else 2 (an f16 cache). */
  kvBytes?: number;
}

/** The KV cache per token of pool; guessed from the weights when the shape is unknown. */
export function kvPerToken(
  facts: ModelFacts,
  kvBytes = dtypeBytes(facts.dtype) ?? 2,
): { bytes: number; guessed?: string } {
  const { layers, kvHeads, headDim } = facts;
  if (layers && kvHeads && headDim) return { bytes: 2 * layers * kvHeads * headDim * kvBytes };
  // Llama-3.3-70B: 141 GB of bf16 weights, 0.33 MB per token; the ratio holds roughly for dense
  // models of the same family and errs high for grouped-query small ones.
  const w = facts.weightsBytes ?? 0;
  return {
    bytes: Math.max(8 * 1024, Math.round(w / 400_000)),
    guessed: "KV cache per token (layers, KV heads or head width unknown)",
  };
}

export function engineOverhead(engine: EngineName, weightsBytes: number): number {
  const { bytes, weightsDivisor } = engineTraits[engine].overhead;
  return weightsDivisor ? bytes + Math.round(weightsBytes / weightsDivisor) : bytes;
}

export function estimateMemory(input: EstimateInput): Estimate {
  const guessed: string[] = [];
  const weights = input.facts.weightsBytes ?? 0;
  const simulated = engineTraits[input.engine].simulated;
  if (input.facts.weightsBytes === undefined && !simulated) {
    guessed.push("weights size (unknown until the files are seen)");
  }
  // An encoder (text-embeddings-inference) holds no tokens between requests.
  const keepsKv = engineTraits[input.engine].kvCache !== false;
  const kv = kvPerToken(input.facts, input.kvBytes);
  if (kv.guessed && !simulated && keepsKv) guessed.push(kv.guessed);
  const context = simulated || !keepsKv ? 0 : kv.bytes * input.poolTokens;
  const base = { device: input.device, perToken: kv.bytes, poolTokens: input.poolTokens, guessed };
  if (simulated) {
    const engine = engineOverhead(input.engine, weights);
    return { ...base, weights, context: 0, engine, total: weights + engine };
  }
  if (input.device === "gpu") {
    const engine = engineOverhead(input.engine, weights);
    return { ...base, weights, context, engine, total: weights + context + engine };
  }
  const total = Math.max(Math.round(weights * 1.5) + 2 * GiB, weights + context + 2 * GiB);
  return { ...base, weights, context, engine: total - weights - context, total };
}

/**
 * One card's share of a replica spread over `gpus` cards: weights and KV split evenly (tensor
 * parallel and llama.cpp's layer split both divide them), the engine's overhead on every card.
 */
export function perCardNeed(est: Estimate, gpus: number, engine: EngineName): MemoryNeed {
  const g = Math.max(1, gpus);
  const weights = Math.ceil(est.weights / g);
  const context = Math.ceil(est.context / g);
  const overhead = engineOverhead(engine, weights);
  return { weights, context, engine: overhead, total: weights + context + overhead };
}

/** The largest KV pool (tokens) that fits `gpus` cards of `usablePerCard` bytes; 0 if none. */
export function poolThatFits(
  est: Estimate,
  gpus: number,
  engine: EngineName,
  usablePerCard: number,
) {
  const g = Math.max(1, gpus);
  const weights = Math.ceil(est.weights / g);
  const room = usablePerCard - weights - engineOverhead(engine, weights);
  if (room <= 0 || est.perToken <= 0) return 0;
  return Math.floor((room * g) / est.perToken);
}

/** Bytes as the tables show them: "4.7 GB" (GiB, one decimal), "512 MB" below one. */
export function formatBytes(n: number): string {
  if (n >= GiB) return `${(n / GiB).toFixed(1)} GB`;
  return `${Math.round(n / MiB)} MB`;
}
