/** llama.cpp's `llama-server`: one GGUF, `/health` 503 while loading and 200 once loaded. */
import type { EngineAdapter, EngineProfile, LaunchPlan, PlanInput } from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { detectBinary } from "./detect_binary.ts";
import { checkFlags, commonRefusals, type FlagRules, type Refusal } from "./flag_gate.ts";
import { LaunchPlanError } from "./launch_plan_error.ts";
import { llamacppDialect } from "./metric_dialect.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";

const { setByAgent, credential, readsFile, writesFile } = commonRefusals;
const download: Refusal = { why: "downloads a model or file the agent did not fetch and check" };
const loadsFile: Refusal = { why: "loads a file outside the model's weights" };
const logsPrompts: Refusal = { why: "logs prompts and answers" };

export const llamacppFlagRules: FlagRules = {
  engine: "llamacpp",
  abbreviations: false,
  // `--embd-bge-small-en-default`, `--fim-qwen-7b-default`, ...: each fetches a model by name.
  refusedPatterns: [{ pattern: /^--[a-z0-9-]+-default$/, why: download.why }],
  refused: {
    "-m": setByAgent,
    "--model": setByAgent,
    "-a": setByAgent,
    "--alias": setByAgent,
    "--hf-token": credential,
    "-hft": credential,
    "-mu": download,
    "--model-url": download,
    "-hf": download,
    "-hfr": download,
    "--hf-repo": download,
    "-hff": download,
    "--hf-file": download,
    "-hfd": download,
    "-hfrd": download,
    "--hf-repo-draft": download,
    "-hfv": download,
    "-hfrv": download,
    "--hf-repo-v": download,
    "-hffv": download,
    "--hf-file-v": download,
    "-dr": download,
    "--docker-repo": download,
    "-mmu": download,
    "--mmproj-url": download,
    "-md": loadsFile,
    "--model-draft": loadsFile,
    "-mv": loadsFile,
    "--model-vocoder": loadsFile,
    "-mm": { why: "loads a file; the projector is fetched with the model" },
    "--mmproj": { why: "loads a file; the projector is fetched with the model" },
    "--lora": loadsFile,
    "--lora-scaled": loadsFile,
    "--control-vector": loadsFile,
    "--control-vector-scaled": loadsFile,
    "-f": readsFile,
    "--file": readsFile,
    "-bf": readsFile,
    "--binary-file": readsFile,
    "-jf": readsFile,
    "--json-schema-file": readsFile,
    "--grammar-file": readsFile,
    "-sysf": readsFile,
    "--system-prompt-file": readsFile,
    "--models-dir": loadsFile,
    "--models-preset": readsFile,
    "--chat-template-file": readsFile,
    "--ssl-key-file": readsFile,
    "--ssl-cert-file": readsFile,
    "--prompt-cache": writesFile,
    "--logdir": writesFile,
    "--log-file": writesFile,
    "--slot-save-path": writesFile,
    "--path": { why: "serves a directory's files over HTTP" },
    "--media-path": { why: "lets requests read local files" },
    "--rpc": { why: "sends the model and prompts to other machines" },
    "--props": { why: "lets clients change the server's settings" },
    "--no-slots": { why: "the agent reads the slots" },
    "-v": logsPrompts,
    "--verbose": logsPrompts,
    "--log-verbose": logsPrompts,
    "-lv": logsPrompts,
    "--verbosity": logsPrompts,
    "--log-verbosity": logsPrompts,
    "--verbose-prompt": logsPrompts,
  },
};

/** "version: 6134 (9c4a2d1)" on stderr; a build without git metadata says "0 (unknown)". */
export function parseLlamacppVersion(output: string): string | undefined {
  const m = /version:\s*(\d+)\s*\(([^)]*)\)/.exec(output);
  if (!m) return undefined;
  const [, build, commit] = m;
  if (build === "0" && commit === "unknown") return undefined;
  return `b${build} (${commit})`;
}

/**
 * The profile in llama-server's words. Tensor parallel and memory fraction have none. A chat
 * model gets `--jinja`: without it llama-server answers every request with `tools` by a 500
 * ("tools param requires --jinja flag"), and with it the GGUF's own chat template is used (a GGUF
 * without one gets llama.cpp's default).
 */
export function llamacppProfileArgs(p: EngineProfile = {}): string[] {
  const out: string[] = [];
  if (p.contextLength !== undefined) out.push("-c", String(p.contextLength));
  if (p.parallel !== undefined) out.push("-np", String(p.parallel));
  if (p.gpuLayers !== undefined) out.push("-ngl", String(p.gpuLayers));
  if (p.mode === "embedding") out.push("--embeddings");
  else if (p.mode === "rerank") out.push("--reranking");
  else out.push("--jinja");
  return out;
}

const traits = engineTraits.llamacpp;

export const llamacppAdapter: EngineAdapter = {
  name: traits.name,
  // CPU builds run anywhere; a CUDA build uses the cards it sees.
  requirements: { gpu: traits.gpu },
  detect: (opts) =>
    detectBinary({
      engine: "llamacpp",
      name: "llama-server",
      versionArgs: ["--version"],
      parseVersion: parseLlamacppVersion,
      versionTimeoutMs: 10_000,
    }, opts),
  ...httpProbes,
  dialect: llamacppDialect,
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("llamacpp", "a GGUF file (modelPath) is needed");
    }
    checkFlags(llamacppFlagRules, input.args, input.allowFlags);
    return {
      cmd: input.binary ?? "llama-server",
      args: [
        "-m",
        input.modelPath,
        "--host",
        input.host,
        "--port",
        String(input.port),
        "--alias",
        input.model,
        "--metrics",
        "--slots",
        ...llamacppProfileArgs(input.profile),
        ...input.args,
      ],
      env: { LLAMA_API_KEY: input.apiKey },
    };
  },
};
