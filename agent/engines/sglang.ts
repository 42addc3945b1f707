/**
 * SGLang (`python -m sglang.launch_server`), run by the Python it is installed in. `/health`
 * answers 503 until the server has warmed up; `/health_generate` would prove a token can be
 * made, but it queues behind real requests, so a busy engine would look dead to the probe.
 * RadixAttention (its prefix cache) is on by default and nothing here turns it off: it is what
 * the router's session affinity fills.
 */
import type { EngineAdapter, EngineProfile, LaunchPlan, PlanInput } from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { detectBinary } from "./detect_binary.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { checkFlags } from "../../core/engines/flag_gate.ts";
import { sglangFlagRules } from "../../core/engines/engine_flag_rules.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";
import { sglangDialect } from "./metric_dialect.ts";
import { parseVllmVersion, safetensorsOnly } from "./vllm.ts";
import { pythonVersionArgs, sglangKeyEnv, sglangLauncher } from "./python_launch.ts";

/** The profile in SGLang's words. It offloads no layers; `--tp-size` is its tensor parallel. */
export function sglangProfileArgs(p: EngineProfile = {}): string[] {
  const out: string[] = [];
  if (p.contextLength !== undefined) out.push("--context-length", String(p.contextLength));
  if (p.parallel !== undefined) out.push("--max-running-requests", String(p.parallel));
  if (p.tensorParallel !== undefined) out.push("--tp-size", String(p.tensorParallel));
  if (p.gpuMemoryFraction !== undefined) {
    out.push("--mem-fraction-static", String(p.gpuMemoryFraction));
  }
  if (p.mode === "embedding") out.push("--is-embedding");
  return out;
}

const traits = engineTraits.sglang;

export const sglangAdapter: EngineAdapter = {
  name: traits.name,
  // FlashInfer and its kernels start at Volta, as vLLM's do.
  requirements: { gpu: traits.gpu, minComputeCapability: "7.0" },
  detect: (opts) =>
    detectBinary({
      engine: "sglang",
      name: "python3",
      versionArgs: pythonVersionArgs("sglang"),
      parseVersion: parseVllmVersion,
      versionTimeoutMs: 60_000,
      missingWithoutVersion: "cannot import sglang",
    }, opts),
  ...httpProbes,
  dialect: sglangDialect,
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("sglang", "a model directory or hub id (modelPath) is needed");
    }
    if (input.profile?.mode === "rerank") {
      throw new LaunchPlanError("sglang", "SGLang is not started for reranking here; use tei");
    }
    checkFlags(sglangFlagRules, input.args, input.allowFlags);
    return {
      cmd: input.binary ?? "python3",
      args: [
        "-c",
        sglangLauncher,
        "--model-path",
        input.modelPath,
        "--host",
        input.host,
        "--port",
        String(input.port),
        "--served-model-name",
        input.model,
        // Without it SGLang publishes no /metrics, and its load would be unknown.
        "--enable-metrics",
        ...safetensorsOnly(input.modelPath, input.profile),
        ...sglangProfileArgs(input.profile),
        ...input.args,
      ],
      env: { [sglangKeyEnv]: input.apiKey },
    };
  },
};
