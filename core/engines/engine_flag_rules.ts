/**
 * Each engine's refused flags, for the one flag gate (flag_gate.ts): the control plane runs it
 * when a model is added or changed, so a refused flag never reaches the catalog (or the audit
 * log), and the agent runs it again before a start, since its adapters take arguments from
 * elsewhere too (a joined node's own tests, `up --model`).
 */
import { checkFlags, commonRefusals, type FlagRules, type Refusal } from "./flag_gate.ts";

const { setByAgent, credential, readsFile, writesFile } = commonRefusals;

// ---- llama.cpp ----
const download: Refusal = { why: "downloads a model or file the agent did not fetch and check" };
const loadsFile: Refusal = { why: "loads a file outside the model's weights" };
const logsPrompts: Refusal = { why: "logs prompts and answers" };

export const llamacppFlagRules: FlagRules = {
  engine: "llamacpp",
  abbreviations: false,
  // The host-memory prompt cache came with llama.cpp #16391 (October 2025, about b6710); the
  // number is set a little later, since a build just too old would refuse to start with it.
  since: { "--cache-ram": 6800, "-cram": 6800 },
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

// ---- vLLM ----
const loadsCode: Refusal = { why: "loads Python code" };
const fetches: Refusal = { why: "fetches another revision than the one pinned and checked" };

export const vllmFlagRules: FlagRules = {
  engine: "vllm",
  abbreviations: true,
  refused: {
    "--model": setByAgent,
    "--served-model-name": setByAgent,
    "--trust-remote-code": {
      why: "runs code from the model's repository; allow it explicitly for models that need it",
      allowable: true,
    },
    "--load-format": { why: "changes how weights load, and some ways run code (pickle)" },
    "--download-dir": writesFile,
    "--tokenizer": { why: "reads another repository or path" },
    "--hf-token": credential,
    "--hf-overrides": { why: "rewrites the checkpoint config, which can name code to load" },
    "--chat-template": readsFile,
    "--ssl-keyfile": readsFile,
    "--ssl-certfile": readsFile,
    "--ssl-ca-certs": readsFile,
    "--lora-modules": readsFile,
    "--allowed-local-media-path": { why: "serves local files to requests" },
    "--uds": { why: "listens where the agent does not look" },
    "--enable-log-requests": { why: "logs prompts" },
    "--enable-log-outputs": { why: "logs answers" },
    "--config": { why: "reads more flags from a file, past this gate" },
    "--revision": fetches,
    "--code-revision": fetches,
    "--tokenizer-revision": fetches,
    "--speculative-config": { why: "can name a draft model to download unchecked" },
    "--qlora-adapter-name-or-path": readsFile,
    "--hf-config-path": readsFile,
    "--generation-config": readsFile,
    "--otlp-traces-endpoint": { why: "sends request traces to another machine" },
    "--middleware": loadsCode,
    "--tool-parser-plugin": loadsCode,
    "--reasoning-parser-plugin": loadsCode,
    "--logits-processors": loadsCode,
    "--logits-processor-pattern": loadsCode,
    "--worker-cls": loadsCode,
    "--worker-extension-cls": loadsCode,
  },
};

// ---- SGLang (`python -m sglang.launch_server`, argparse) ----
export const sglangFlagRules: FlagRules = {
  engine: "sglang",
  abbreviations: true,
  refused: {
    "--model-path": setByAgent,
    "--model": setByAgent,
    "--served-model-name": setByAgent,
    "--trust-remote-code": {
      why: "runs code from the model's repository; allow it explicitly for models that need it",
      allowable: true,
    },
    // RadixAttention is what session routing fills; turning it off is a choice made on purpose.
    "--disable-radix-cache": {
      why: "turns off the prefix cache the router fills; allow it explicitly if that is meant",
      allowable: true,
    },
    "--load-format": { why: "changes how weights load, and some ways run code (pickle)" },
    "--tokenizer-path": { why: "reads another repository or path" },
    "--revision": fetches,
    "--download-dir": writesFile,
    "--file-storage-path": writesFile,
    "--crash-dump-folder": writesFile,
    "--export-metrics-to-file-dir": writesFile,
    "--admin-api-key": credential,
    "--chat-template": readsFile,
    "--completion-template": readsFile,
    "--ssl-keyfile": readsFile,
    "--ssl-certfile": readsFile,
    "--lora-paths": loadsFile,
    "--speculative-draft-model-path": loadsFile,
    "--json-model-override-args": { why: "rewrites the checkpoint config, which can name code" },
    "--config": { why: "reads more flags from a file, past this gate" },
    "--log-requests": logsPrompts,
    "--log-requests-level": logsPrompts,
    "--enable-custom-logit-processor": { why: "lets requests send code to run" },
    "--otlp-traces-endpoint": { why: "sends request traces to another machine" },
    "--dist-init-addr": { why: "sends the model and prompts to other machines" },
  },
};

// ---- TensorRT-LLM (`trtllm-serve`, click: whole flags, spelled with underscores) ----
export const trtllmFlagRules: FlagRules = {
  engine: "trtllm",
  abbreviations: false,
  refused: {
    "--served-model-name": setByAgent,
    "--trust-remote-code": {
      why: "runs code from the model's repository; allow it explicitly for models that need it",
      allowable: true,
    },
    "--tokenizer": { why: "reads another repository or path" },
    "--custom-tokenizer": loadsCode,
    "--extra-llm-api-options": { why: "reads more options from a file, past this gate" },
    "--config": { why: "reads more options from a file, past this gate" },
    "--metadata-server-config-file": readsFile,
    "--otlp-traces-endpoint": { why: "sends request traces to another machine" },
    "--grpc": { why: "speaks gRPC, which the router does not" },
  },
};

// ---- text-embeddings-inference (`text-embeddings-router`, clap: whole flags) ----
export const teiFlagRules: FlagRules = {
  engine: "tei",
  abbreviations: false,
  refused: {
    "--model-id": setByAgent,
    "--hostname": setByAgent,
    "--served-model-name": setByAgent,
    "--revision": fetches,
    "--hf-api-token": credential,
    "--hf-token": credential,
    "--huggingface-hub-cache": writesFile,
    "--uds-path": { why: "listens where the agent does not look" },
    "--otlp-endpoint": { why: "sends request traces to another machine" },
  },
};

// ---- the simulated engine ----
export const simFlagRules: FlagRules = {
  engine: "sim",
  abbreviations: false,
  refused: { "--model": commonRefusals.setByAgent },
};

/** The rules of every engine the catalog can name. */
export const engineFlagRules: Readonly<Record<string, FlagRules>> = {
  llamacpp: llamacppFlagRules,
  vllm: vllmFlagRules,
  sglang: sglangFlagRules,
  trtllm: trtllmFlagRules,
  tei: teiFlagRules,
  sim: simFlagRules,
};

/**
 * The gate for a catalog entry's arguments: throws `UnsafeFlagError` naming the first refused
 * flag. An engine without rules here (a test's adapter) has only the shared refusals.
 */
export function checkEngineFlags(
  engine: string,
  args: readonly string[],
  allowFlags: readonly string[] = [],
): void {
  const rules = Object.hasOwn(engineFlagRules, engine)
    ? engineFlagRules[engine]!
    : { engine, refused: {}, abbreviations: false };
  checkFlags(rules, args, allowFlags);
}
