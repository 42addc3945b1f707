/**
 * TensorRT-LLM's OpenAI server (`trtllm-serve`), run through the Python it is installed in so
 * that a key guards it (python_launch.ts: trtllm-serve has none of its own). Its load is on
 * `/prometheus/metrics`; `/metrics` is JSON iteration stats. KV block reuse (its prefix cache)
 * is on by default in the PyTorch backend and nothing here turns it off.
 */
import type { EngineAdapter, EngineProfile, LaunchPlan, PlanInput } from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { detectBinary } from "./detect_binary.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { checkFlags } from "../../core/engines/flag_gate.ts";
import { trtllmFlagRules } from "../../core/engines/engine_flag_rules.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";
import { trtllmDialect } from "./metric_dialect.ts";
import { isHubId, parseVllmVersion } from "./vllm.ts";
import { pythonVersionArgs, trtllmKeyEnv, trtllmLauncher } from "./python_launch.ts";

/**
 * The profile in trtllm-serve's words (underscores). A share of the card has none: it sizes its
 * KV cache from what the weights leave (`--kv_cache_free_gpu_memory_fraction`), another measure.
 */
export function trtllmProfileArgs(p: EngineProfile = {}): string[] {
  const out: string[] = [];
  if (p.contextLength !== undefined) out.push("--max_seq_len", String(p.contextLength));
  if (p.parallel !== undefined) out.push("--max_batch_size", String(p.parallel));
  if (p.tensorParallel !== undefined) out.push("--tp_size", String(p.tensorParallel));
  return out;
}

const traits = engineTraits.trtllm;

export const trtllmAdapter: EngineAdapter = {
  name: traits.name,
  // Its kernels and FP8 paths need Ampere or later.
  requirements: { gpu: traits.gpu, minComputeCapability: "8.0" },
  detect: (opts) =>
    detectBinary({
      engine: "trtllm",
      name: "python3",
      versionArgs: pythonVersionArgs("tensorrt_llm"),
      // Importing it prints a "[TensorRT-LLM] TensorRT-LLM version: X" banner first.
      parseVersion: parseVllmVersion,
      versionTimeoutMs: 60_000,
      missingWithoutVersion: "cannot import tensorrt_llm",
    }, opts),
  ...httpProbes,
  metricsPath: "/prometheus/metrics",
  dialect: trtllmDialect,
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("trtllm", "a model directory (modelPath) is needed");
    }
    // Given a hub id it downloads the repository itself, with no way to pin it to safetensors.
    if (isHubId(input.modelPath)) {
      throw new LaunchPlanError("trtllm", "give it the fetched model directory, not a hub id");
    }
    if (input.profile?.mode === "embedding" || input.profile?.mode === "rerank") {
      throw new LaunchPlanError("trtllm", "trtllm-serve is started for chat and completions only");
    }
    checkFlags(trtllmFlagRules, input.args, input.allowFlags);
    return {
      cmd: input.binary ?? "python3",
      args: [
        "-c",
        trtllmLauncher,
        input.modelPath,
        "--host",
        input.host,
        "--port",
        String(input.port),
        "--served_model_name",
        input.model,
        ...trtllmProfileArgs(input.profile),
        ...input.args,
      ],
      env: { [trtllmKeyEnv]: input.apiKey },
    };
  },
};
