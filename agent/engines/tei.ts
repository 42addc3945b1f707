/**
 * Hugging Face text-embeddings-inference (`text-embeddings-router`): embeddings (its `/embed`
 * and the OpenAI `/v1/embeddings` the router calls) and reranking (`/rerank`) for encoder models.
 * Whether it embeds or reranks is the model's own kind (a classifier reranks), not a flag, so the
 * mode is not read (the catalog refuses a chat model on it, engine_traits' `serves`). It
 * reads its key from `API_KEY`, which guards everything but `/health` and `/metrics`.
 */
import type { EngineAdapter, EngineProfile, LaunchPlan, PlanInput } from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { detectBinary } from "./detect_binary.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { checkFlags } from "../../core/engines/flag_gate.ts";
import { teiFlagRules } from "../../core/engines/engine_flag_rules.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";
import { teiDialect } from "./metric_dialect.ts";
import { isHubId } from "./vllm.ts";

/** `text-embeddings-router 1.8.2`. */
export function parseTeiVersion(output: string): string | undefined {
  return /text-embeddings-router\s+(\d+\.\d+(?:\.\d+)?[\w.+-]*)/.exec(output)?.[1];
}

/** The profile in TEI's words: slots cap a batch; it has no context, cards or layers to set. */
export function teiProfileArgs(p: EngineProfile = {}): string[] {
  return p.parallel !== undefined ? ["--max-batch-requests", String(p.parallel)] : [];
}

const traits = engineTraits.tei;

export const teiAdapter: EngineAdapter = {
  name: traits.name,
  requirements: { gpu: traits.gpu },
  detect: (opts) =>
    detectBinary({
      engine: "tei",
      name: "text-embeddings-router",
      versionArgs: ["--version"],
      parseVersion: parseTeiVersion,
      versionTimeoutMs: 10_000,
    }, opts),
  ...httpProbes,
  dialect: teiDialect,
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("tei", "a model directory (modelPath) is needed");
    }
    // Given a hub id it downloads the repository itself, unpinned and unchecked.
    if (isHubId(input.modelPath)) {
      throw new LaunchPlanError("tei", "give it the fetched model directory, not a hub id");
    }
    checkFlags(teiFlagRules, input.args, input.allowFlags);
    return {
      cmd: input.binary ?? "text-embeddings-router",
      args: [
        "--model-id",
        input.modelPath,
        "--hostname",
        input.host,
        "--port",
        String(input.port),
        "--served-model-name",
        input.model,
        ...teiProfileArgs(input.profile),
        ...input.args,
      ],
      env: { API_KEY: input.apiKey },
    };
  },
};
