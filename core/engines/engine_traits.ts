/**
 * What each engine this build knows is, as both sides need it: the control plane plans, sizes
 * and places replicas by these facts, the agent's adapters launch and detect by them. A rule
 * that differs by engine reads a trait here rather than testing an engine's name.
 */

/** The engines this build knows, in the order a plan prefers them for a file type. */
export const engineNames = ["llamacpp", "vllm", "sglang", "trtllm", "tei", "sim"] as const;
export type EngineName = (typeof engineNames)[number];

export interface EngineTraits {
  readonly name: EngineName;
  /** As people write it, in messages. */
  readonly label: string;
  /**
   * The weights it loads: "gguf", one .gguf file; "safetensors", a directory (or hub set) of
   * .safetensors files; "nothing" (the simulated engine loads none, so any source suits it).
   */
  readonly reads: "gguf" | "safetensors" | "nothing";
  /** "required": an NVIDIA GPU or nothing; "optional": uses one when there; "none": never. */
  readonly gpu: "required" | "optional" | "none";
  /**
   * A replica over several cards is tensor parallel: the width must divide (or be a multiple of)
   * the KV heads, and the engine is told it. Otherwise the engine splits layers, any count.
   */
  readonly tensorParallel: boolean;
  /**
   * Layers are offloaded by count (llama.cpp `-ngl`), and the context it is given is the whole
   * KV pool its slots share (llama.cpp `-c`), not the context per request.
   */
  readonly layerOffload: boolean;
  /** The memory estimate's inputs: on a card, fixed bytes plus 1/weightsDivisor of the weights. */
  readonly overhead: { readonly bytes: number; readonly weightsDivisor?: number };
  /**
   * Stands in for an engine: it loads nothing and keeps no KV cache, so its estimate is only the
   * weights its file's header names, guessing nothing.
   */
  readonly simulated: boolean;
  /** The agent setting that names its executable; absent: it runs in-process (no binary). */
  readonly binarySetting?: string;
  /**
   * What a replica of it can be for: "generate" (chat, completions), "embedding", "rerank". A
   * model whose capabilities it cannot serve is refused before anything starts.
   */
  readonly serves: readonly EngineServes[];
  /** `false`: it keeps no KV cache (an encoder), so its estimate counts no context. */
  readonly kvCache?: false;
  /**
   * How one replica spans several nodes when no single node holds it; absent: it never does.
   * "rpc": workers lend memory to the head's engine, which offloads layers to them (llama.cpp
   * `rpc-server` + `llama-server --rpc`); the split is layers per node. "pipeline": each node runs
   * `gpus` cards tensor parallel and the nodes are pipeline stages (vLLM `--pipeline-parallel-size`).
   */
  readonly multiNode?: "rpc" | "pipeline";
  /** The agent setting that names a set worker's executable, when it is another program. */
  readonly workerBinarySetting?: string;
}

export type EngineServes = "generate" | "embedding" | "rerank";

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

export const engineTraits: Readonly<Record<EngineName, EngineTraits>> = {
  llamacpp: {
    name: "llamacpp",
    label: "llama.cpp",
    reads: "gguf",
    gpu: "optional",
    tensorParallel: false,
    layerOffload: true,
    // Compute buffers.
    overhead: { bytes: 512 * MiB },
    simulated: false,
    binarySetting: "engines.llama_server",
    serves: ["generate", "embedding", "rerank"],
    multiNode: "rpc",
    workerBinarySetting: "engines.rpc_server",
  },
  vllm: {
    name: "vllm",
    label: "vLLM",
    reads: "safetensors",
    gpu: "required",
    tensorParallel: true,
    layerOffload: false,
    // Its CUDA graphs and activations (docs/large-models).
    overhead: { bytes: 2 * GiB, weightsDivisor: 50 },
    simulated: false,
    binarySetting: "engines.vllm",
    serves: ["generate", "embedding", "rerank"],
    multiNode: "pipeline",
  },
  sglang: {
    name: "sglang",
    label: "SGLang",
    reads: "safetensors",
    gpu: "required",
    tensorParallel: true,
    layerOffload: false,
    // Like vLLM: CUDA graphs and activations beside the weights and its radix (KV) cache.
    overhead: { bytes: 2 * GiB, weightsDivisor: 50 },
    simulated: false,
    // The Python that has `sglang` installed: it runs as `python -m sglang.launch_server`.
    binarySetting: "engines.sglang",
    serves: ["generate", "embedding"],
  },
  trtllm: {
    name: "trtllm",
    label: "TensorRT-LLM",
    reads: "safetensors",
    gpu: "required",
    tensorParallel: true,
    layerOffload: false,
    overhead: { bytes: 2 * GiB, weightsDivisor: 50 },
    simulated: false,
    // The Python that has `tensorrt_llm` installed (its `trtllm-serve` is run through it).
    binarySetting: "engines.trtllm",
    serves: ["generate"],
  },
  tei: {
    name: "tei",
    label: "text-embeddings-inference",
    reads: "safetensors",
    // CPU builds exist; a CUDA build uses the card it is given.
    gpu: "optional",
    tensorParallel: false,
    layerOffload: false,
    // Its batch buffers (max batch tokens × hidden size); an encoder keeps no KV cache.
    overhead: { bytes: 512 * MiB },
    simulated: false,
    binarySetting: "engines.tei",
    serves: ["embedding", "rerank"],
    kvCache: false,
  },
  sim: {
    name: "sim",
    label: "sim",
    reads: "nothing",
    gpu: "none",
    tensorParallel: false,
    layerOffload: false,
    overhead: { bytes: 64 * MiB },
    simulated: true,
    serves: ["generate", "embedding"],
    // Plays llama.cpp's RPC split in CI: its workers listen, its head checks it reaches them.
    multiNode: "rpc",
  },
};

/** The traits of an engine named in a catalog entry or a report; undefined for one this build does not know. */
export function traitsOf(name: string): EngineTraits | undefined {
  return (engineNames as readonly string[]).includes(name)
    ? engineTraits[name as EngineName]
    : undefined;
}

/**
 * The engine that reads one of a source's file types (extensions, lower case): the first in
 * `engineNames` order, so a set holding a .gguf goes to llama.cpp; undefined when none does.
 */
export function engineReading(exts: ReadonlySet<string>): EngineName | undefined {
  return engineNames.find((e) => {
    const reads = engineTraits[e].reads;
    return reads !== "nothing" && exts.has(reads);
  });
}
