/**
 * vLLM's OpenAI server (`vllm serve`). Its HTTP server only answers once the engine is built, so
 * `/health` 200 means ready.
 */
import type {
  EngineAdapter,
  EngineProfile,
  LaunchPlan,
  PlanInput,
  SetProfile,
} from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { detectBinary } from "./detect_binary.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { checkFlags } from "../../core/engines/flag_gate.ts";
import { vllmFlagRules } from "../../core/engines/engine_flag_rules.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";
import { vllmDialect } from "./metric_dialect.ts";

/**
 * Whether vLLM would fetch `s` from the Hugging Face hub: "org/name", not a path, not a URL, and
 * not "org/name:QUANT" (a GGUF inside a repository, which vLLM reads as one file). A string that
 * names something on disk is a path, whatever it looks like.
 */
export function isHubId(s: string, exists: (p: string) => boolean = pathExists): boolean {
  if (!s || s.startsWith("/") || s.startsWith(".") || s.includes("://") || s.includes(":")) {
    return false;
  }
  if (s.split("/").length !== 2) return false;
  return !exists(s);
}

function pathExists(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Left to choose, vLLM loads a repository's pickle files (`pytorch_model.bin`) when it has no
 * safetensors, and unpickling runs whatever the file holds. A local path was fetched and checked
 * by the agent (or put there by the operator), so only hub ids are pinned to safetensors.
 */
export function safetensorsOnly(modelPath: string, profile: EngineProfile = {}): string[] {
  return isHubId(modelPath) && !profile.allowPickle ? ["--load-format", "safetensors"] : [];
}

/** The profile in vLLM's words. GPU layers mean nothing to it (it offloads no layers). */
export function vllmProfileArgs(p: EngineProfile = {}): string[] {
  const out: string[] = [];
  if (p.contextLength !== undefined) out.push("--max-model-len", String(p.contextLength));
  if (p.parallel !== undefined) out.push("--max-num-seqs", String(p.parallel));
  if (p.tensorParallel !== undefined) {
    out.push("--tensor-parallel-size", String(p.tensorParallel));
  }
  if (p.gpuMemoryFraction !== undefined) {
    out.push("--gpu-memory-utilization", String(p.gpuMemoryFraction));
  }
  if (p.set?.nodes !== undefined && p.set.nodes > 1) out.push(...pipelineArgs(p.set));
  if (p.mode === "embedding") out.push("--task", "embed");
  if (p.mode === "rerank") out.push("--task", "score");
  return out;
}

/**
 * vLLM over several nodes on its multiprocessing backend, as its docs give it: each node runs
 * `vllm serve` with the same model, tensor parallel over its own cards and one pipeline stage per
 * node; rank 0 (the head) serves the API and the rendezvous at `--master-addr`, the others run
 * `--headless`. Its traffic between nodes (torch.distributed, NCCL) is its own, not the tunnel's.
 */
export function pipelineArgs(set: SetProfile): string[] {
  const [addr, port] = splitHostPort(set.master ?? "");
  return [
    "--pipeline-parallel-size",
    String(set.nodes),
    "--distributed-executor-backend",
    "mp",
    "--nnodes",
    String(set.nodes),
    "--node-rank",
    String(set.rank ?? 0),
    ...(addr ? ["--master-addr", addr] : []),
    ...(port ? ["--master-port", port] : []),
    ...(set.role === "worker" ? ["--headless"] : []),
  ];
}

function splitHostPort(s: string): [string, string] {
  const at = s.lastIndexOf(":");
  return at > 0 ? [s.slice(0, at), s.slice(at + 1)] : [s, ""];
}

/** `vllm --version` prints the version alone on its last line, after any log lines. */
export function parseVllmVersion(output: string): string | undefined {
  const lines = output.trim().split("\n").map((l) => l.trim()).reverse();
  return lines.find((l) => /^\d+\.\d+(\.\d+)?([.+\w-]*)$/.test(l));
}

const traits = engineTraits.vllm;

/** A headless rank: the same command with `--headless`; it answers nothing, so it is ready as it runs. */
export const vllmWorkerAdapter: EngineAdapter = {
  name: traits.name,
  requirements: { gpu: traits.gpu, minComputeCapability: "7.0" },
  detect: (opts) => vllmAdapter.detect(opts),
  ...httpProbes,
  probe: "running",
  dialect: vllmDialect,
  plan: (input) => vllmAdapter.plan(input),
};

export const vllmAdapter: EngineAdapter = {
  name: traits.name,
  // Its CUDA kernels start at Volta.
  requirements: { gpu: traits.gpu, minComputeCapability: "7.0" },
  detect: (opts) =>
    detectBinary({
      engine: "vllm",
      name: "vllm",
      versionArgs: ["--version"],
      parseVersion: parseVllmVersion,
      versionTimeoutMs: 60_000,
    }, opts),
  ...httpProbes,
  dialect: vllmDialect,
  get worker() {
    return vllmWorkerAdapter;
  },
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("vllm", "a model directory or hub id (modelPath) is needed");
    }
    checkFlags(vllmFlagRules, input.args, input.allowFlags);
    return {
      cmd: input.binary ?? "vllm",
      args: [
        "serve",
        input.modelPath,
        "--host",
        input.host,
        "--port",
        String(input.port),
        "--served-model-name",
        input.model,
        // Automatic prefix caching: a conversation's earlier turns are not recomputed (chat
        // only; pooling tasks have no prompt worth keeping).
        ...(input.profile?.mode === "embedding" || input.profile?.mode === "rerank"
          ? []
          : ["--enable-prefix-caching"]),
        ...safetensorsOnly(input.modelPath, input.profile),
        ...vllmProfileArgs(input.profile),
        ...input.args,
      ],
      env: { VLLM_API_KEY: input.apiKey },
    };
  },
};
