/**
 * What the supervisor needs to know about one kind of inference engine, declared rather than coded:
 * how to launch it, how to tell it is ready, and which Prometheus names carry its load.
 */
import type { MetricDialect } from "./metric_dialect.ts";
import type { RunCommand } from "../run_command.ts";

/** What a launch plan is built from. Everything here has been resolved by the supervisor. */
export interface PlanInput {
  /** The name clients ask for; the engine serves the model under it. */
  readonly model: string;
  /** Weights on disk (a GGUF file, a safetensors directory) or, for vLLM, a hub id. */
  readonly modelPath?: string;
  /** Overrides the engine's default executable. */
  readonly binary?: string;
  /** The executable's version as detection found it ("b6134 (9c4a2d1b)"); absent: unknown. */
  readonly version?: string;
  /** Extra arguments from the catalog, checked by the flag gate before they reach argv. */
  readonly args: readonly string[];
  /** Refused flags the catalog explicitly allows; only those the gate marks as allowable count. */
  readonly allowFlags: readonly string[];
  readonly host: string;
  readonly port: number;
  /** The per-replica key. It goes into `LaunchPlan.env`, never into argv (argv is world-readable). */
  readonly apiKey: string;
  /** The profile: what the placement decided. Absent means "the engine's own default". */
  readonly profile?: EngineProfile;
}

/** What a replica is for: chat/completions, embeddings, or reranking. */
export type EngineMode = "generate" | "embedding" | "rerank";

/**
 * The knobs every engine spells its own way. An adapter turns the ones it has into flags and
 * ignores the ones that mean nothing to it (llama.cpp has no memory fraction; vLLM offloads no
 * layers), so one placement decision can be handed to any engine.
 */
export interface EngineProfile {
  /** Tokens of context per sequence (llama.cpp `-c`, vLLM `--max-model-len`). */
  readonly contextLength?: number;
  /** Sequences decoded at once (llama.cpp `-np`, vLLM `--max-num-seqs`). */
  readonly parallel?: number;
  /** Layers on the GPU (llama.cpp `-ngl`); 0 keeps the model on the CPU. */
  readonly gpuLayers?: number;
  /** Cards one replica spans (vLLM `--tensor-parallel-size`; llama.cpp splits layers itself). */
  readonly tensorParallel?: number;
  /** Share of each card's memory the engine may take, 0..1 (vLLM `--gpu-memory-utilization`). */
  readonly gpuMemoryFraction?: number;
  readonly mode?: EngineMode;
  /**
   * The model's catalog entry allows pickle weights. Without it a hub id given to vLLM is read as
   * safetensors only: its pickle files run code when loaded.
   */
  readonly allowPickle?: boolean;
  /** Its part in a replica over several nodes (core/protocol/messages.ts `replicaSetSchema`). */
  readonly set?: SetProfile;
}

/**
 * A set member's launch, as its agent resolved it: the head's engine reaches each worker at a
 * loopback address its agent forwards (agent/tunnel); a worker's engine binds loopback.
 */
export interface SetProfile {
  readonly role: "head" | "worker";
  /** Head: each worker, in order, where its engine reaches it and the layers it holds. */
  readonly workers?: readonly { readonly address: string; readonly layers?: number }[];
  /** Layers this member holds. */
  readonly layers?: number;
  /** Nodes in the set and this one's rank (0: the head), for pipeline engines. */
  readonly nodes?: number;
  readonly rank?: number;
  /** Pipeline: host:port of the head's rendezvous that the other ranks join. */
  readonly master?: string;
  /** Worker: bytes of memory it offers the head (llama.cpp `rpc-server -m`). */
  readonly memoryBytes?: number;
}

/** What a node must have for an engine to run there; checked before placing and by `doctor`. */
export interface EngineRequirements {
  /** "required": an NVIDIA GPU or nothing; "optional": uses one when there; "none": never. */
  readonly gpu: "required" | "optional" | "none";
  /** Oldest compute capability the engine's kernels run on, "7.0". */
  readonly minComputeCapability?: string;
  /** CPU flags the engine's build needs (e.g. "avx2"). */
  readonly cpuFlags?: readonly string[];
}

export interface DetectOptions {
  /** Configured executable (agent.yaml), used instead of searching PATH. */
  readonly binary?: string;
  /** PATH to search; the agent's own by default. */
  readonly path?: string;
  readonly run?: RunCommand;
}

export type Detection =
  | { readonly installed: true; readonly binary: string; readonly version?: string }
  | { readonly installed: false; readonly missing: string };

export interface LaunchPlan {
  readonly cmd: string;
  readonly args: string[];
  /** Only what this engine adds; the supervisor supplies PATH, HOME and LANG. */
  readonly env: Record<string, string>;
}

export interface EngineAdapter {
  readonly name: string;
  /** Throws `LaunchPlanError` (or its `UnsafeFlagError`) for a spec it will not run. */
  plan(input: PlanInput): LaunchPlan;
  /** Polled with the engine's key until `isReady` says so. */
  readonly healthPath: string;
  isReady(status: number, body: string): boolean;
  /** Prometheus text endpoint, read with the engine's key. */
  readonly metricsPath: string;
  readonly dialect: MetricDialect;
  readonly requirements: EngineRequirements;
  /** Finds the engine on this node and its version; never throws. */
  detect(opts?: DetectOptions): Promise<Detection>;
  /**
   * How a set's worker is known ready, with no metrics read (it speaks no HTTP; a stray GET
   * would be read as its own protocol): "tcp", its port accepts a connection; "running", it has
   * no port (a headless pipeline rank), so running is all. Absent: `healthPath`.
   */
  readonly probe?: "tcp" | "running";
  /** The same engine as a set's worker (engine_traits `multiNode`); absent: it has none. */
  readonly worker?: EngineAdapter;
  /** Lines of its output worth logging once it is ready (where a set's head put its layers). */
  readyNotes?(output: string): string[];
}

/** Statuses some engines put in a 200 body while they are still loading. */
const notReadyWords = new Set([
  "loading",
  "starting",
  "initializing",
  "warming_up",
  "error",
  "unhealthy",
]);

/**
 * Readiness by status code, then by a JSON body's `status` if there is one: some engines answer 200
 * as soon as their HTTP server is up and put the real state in the body. A body that is not JSON
 * (empty, `OK`) is no evidence either way, so it does not block readiness.
 */
export function readyByStatusAndBody(status: number, body: string): boolean {
  if (status < 200 || status > 299) return false;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === "object" && "status" in parsed) {
      const word = (parsed as { status: unknown }).status;
      if (typeof word === "string" && notReadyWords.has(word.toLowerCase())) return false;
    }
  } catch {
    // not JSON: the status code decides
  }
  return true;
}

/**
 * Where the OpenAI-style HTTP engines (llama-server, vLLM, the sim) are probed: `/health`, judged
 * by `readyByStatusAndBody`, and Prometheus text at `/metrics`.
 */
export const httpProbes: Pick<EngineAdapter, "healthPath" | "isReady" | "metricsPath"> = {
  healthPath: "/health",
  isReady: readyByStatusAndBody,
  metricsPath: "/metrics",
};
