/**
 * Each engine's refused flags, for the one flag gate (flag_gate.ts): the control plane runs it
 * when a model is added or changed, so a refused flag never reaches the catalog (or the audit
 * log), and the agent runs it again before a start, since its adapters take arguments from
 * elsewhere too (a joined node's own tests, `up --model`).
 */
import { checkFlags, commonRefusals, type FlagRules, type Refusal } from "./flag_gate.ts";

const { setByAgent, credential, readsFile, writesFile } = commonRefusals;

type Engine = "llamacpp" | "vllm" | "sglang" | "trtllm" | "tei" | "sim";

const download: Refusal = { why: "downloads a model or file the agent did not fetch and check" };
const loadsFile: Refusal = { why: "loads a file outside the model's weights" };
const logsPrompts: Refusal = { why: "logs prompts and answers" };
const loadsCode: Refusal = { why: "loads Python code" };
const fetches: Refusal = { why: "fetches another revision than the one pinned and checked" };
const remoteCode: Refusal = {
  why: "runs code from the model's repository; allow it explicitly for models that need it",
  allowable: true,
};
const projector: Refusal = { why: "loads a file; the projector is fetched with the model" };
const otherPath: Refusal = { why: "reads another repository or path" };
const loadFormat: Refusal = { why: "changes how weights load, and some ways run code (pickle)" };
const moreFlags: Refusal = { why: "reads more flags from a file, past this gate" };
const moreOptions: Refusal = { why: "reads more options from a file, past this gate" };
const traces: Refusal = { why: "sends request traces to another machine" };
const elsewhere: Refusal = { why: "sends the model and prompts to other machines" };
const otherSocket: Refusal = { why: "listens where the agent does not look" };

/** How each engine reads its command line, apart from what it refuses. */
const engines: Readonly<Record<Engine, Omit<FlagRules, "engine" | "refused">>> = {
  llamacpp: {
    abbreviations: false,
    // The host-memory prompt cache came with llama.cpp #16391 (October 2025, about b6710); the
    // number is set a little later, since a build just too old would refuse to start with it.
    since: { "--cache-ram": 6800, "-cram": 6800 },
    // `--embd-bge-small-en-default`, `--fim-qwen-7b-default`, ...: each fetches a model by name.
    refusedPatterns: [{ pattern: /^--[a-z0-9-]+-default$/, why: download.why }],
  },
  // argparse: any unambiguous beginning of a long flag is that flag.
  vllm: { abbreviations: true },
  // `python -m sglang.launch_server`, argparse.
  sglang: { abbreviations: true },
  // `trtllm-serve`, click: whole flags, spelled with underscores.
  trtllm: { abbreviations: false },
  // `text-embeddings-router`, clap: whole flags.
  tei: { abbreviations: false },
  sim: { abbreviations: false },
};

/**
 * Every refused flag: why, and the engines that refuse it. For an engine that takes
 * abbreviations, a beginning that several of its flags share names the first one listed here.
 */
const refusals: readonly (readonly [Refusal, readonly Engine[], ...string[]])[] = [
  [setByAgent, ["llamacpp"], "-m", "--model", "-a", "--alias"],
  [credential, ["llamacpp"], "--hf-token", "-hft"],
  [download, ["llamacpp"], "-mu", "--model-url", "-hf", "-hfr", "--hf-repo", "-hff", "--hf-file"],
  [download, ["llamacpp"], "-hfd", "-hfrd", "--hf-repo-draft", "-hfv", "-hfrv", "--hf-repo-v"],
  [download, ["llamacpp"], "-hffv", "--hf-file-v", "-dr", "--docker-repo", "-mmu", "--mmproj-url"],
  [loadsFile, ["llamacpp"], "-md", "--model-draft", "-mv", "--model-vocoder"],
  [projector, ["llamacpp"], "-mm", "--mmproj"],
  [loadsFile, ["llamacpp"], "--lora", "--lora-scaled", "--control-vector"],
  [loadsFile, ["llamacpp"], "--control-vector-scaled"],
  [readsFile, ["llamacpp"], "-f", "--file", "-bf", "--binary-file", "-jf", "--json-schema-file"],
  [readsFile, ["llamacpp"], "--grammar-file", "-sysf", "--system-prompt-file"],
  [loadsFile, ["llamacpp"], "--models-dir"],
  [readsFile, ["llamacpp"], "--models-preset", "--chat-template-file"],
  [readsFile, ["llamacpp"], "--ssl-key-file", "--ssl-cert-file"],
  [writesFile, ["llamacpp"], "--prompt-cache", "--logdir", "--log-file", "--slot-save-path"],
  [{ why: "serves a directory's files over HTTP" }, ["llamacpp"], "--path"],
  [{ why: "lets requests read local files" }, ["llamacpp"], "--media-path"],
  [elsewhere, ["llamacpp"], "--rpc"],
  [{ why: "lets clients change the server's settings" }, ["llamacpp"], "--props"],
  [{ why: "the agent reads the slots" }, ["llamacpp"], "--no-slots"],
  [logsPrompts, ["llamacpp"], "-v", "--verbose", "--log-verbose", "-lv", "--verbosity"],
  [logsPrompts, ["llamacpp"], "--log-verbosity", "--verbose-prompt"],

  [setByAgent, ["sglang"], "--model-path"],
  [setByAgent, ["vllm", "sglang", "sim"], "--model"],
  [setByAgent, ["vllm", "sglang", "trtllm"], "--served-model-name"],
  [setByAgent, ["tei"], "--model-id", "--hostname", "--served-model-name"],
  [remoteCode, ["vllm", "sglang", "trtllm"], "--trust-remote-code"],
  // RadixAttention is what session routing fills; turning it off is a choice made on purpose.
  [
    {
      why: "turns off the prefix cache the router fills; allow it explicitly if that is meant",
      allowable: true,
    },
    ["sglang"],
    "--disable-radix-cache",
  ],
  [loadFormat, ["vllm", "sglang"], "--load-format"],
  [writesFile, ["vllm"], "--download-dir"],
  [otherPath, ["vllm", "trtllm"], "--tokenizer"],
  [otherPath, ["sglang"], "--tokenizer-path"],
  [fetches, ["sglang", "tei"], "--revision"],
  [credential, ["vllm"], "--hf-token"],
  [credential, ["tei"], "--hf-api-token", "--hf-token"],
  [writesFile, ["tei"], "--huggingface-hub-cache"],
  [
    { why: "rewrites the checkpoint config, which can name code to load" },
    ["vllm"],
    "--hf-overrides",
  ],
  [writesFile, ["sglang"], "--download-dir", "--file-storage-path", "--crash-dump-folder"],
  [writesFile, ["sglang"], "--export-metrics-to-file-dir"],
  [credential, ["sglang"], "--admin-api-key"],
  [readsFile, ["vllm", "sglang"], "--chat-template"],
  [readsFile, ["sglang"], "--completion-template"],
  [readsFile, ["vllm", "sglang"], "--ssl-keyfile", "--ssl-certfile"],
  [readsFile, ["vllm"], "--ssl-ca-certs", "--lora-modules"],
  [loadsFile, ["sglang"], "--lora-paths", "--speculative-draft-model-path"],
  [
    { why: "rewrites the checkpoint config, which can name code" },
    ["sglang"],
    "--json-model-override-args",
  ],
  [{ why: "serves local files to requests" }, ["vllm"], "--allowed-local-media-path"],
  [otherSocket, ["vllm"], "--uds"],
  [otherSocket, ["tei"], "--uds-path"],
  [{ why: "logs prompts" }, ["vllm"], "--enable-log-requests"],
  [{ why: "logs answers" }, ["vllm"], "--enable-log-outputs"],
  [moreFlags, ["vllm", "sglang"], "--config"],
  [logsPrompts, ["sglang"], "--log-requests", "--log-requests-level"],
  [{ why: "lets requests send code to run" }, ["sglang"], "--enable-custom-logit-processor"],
  [fetches, ["vllm"], "--revision", "--code-revision", "--tokenizer-revision"],
  [{ why: "can name a draft model to download unchecked" }, ["vllm"], "--speculative-config"],
  [readsFile, ["vllm"], "--qlora-adapter-name-or-path", "--hf-config-path", "--generation-config"],
  [traces, ["vllm", "sglang", "trtllm"], "--otlp-traces-endpoint"],
  [traces, ["tei"], "--otlp-endpoint"],
  [elsewhere, ["sglang"], "--dist-init-addr"],
  [loadsCode, ["vllm"], "--middleware", "--tool-parser-plugin", "--reasoning-parser-plugin"],
  [loadsCode, ["vllm"], "--logits-processors", "--logits-processor-pattern", "--worker-cls"],
  [loadsCode, ["vllm"], "--worker-extension-cls"],
  [loadsCode, ["trtllm"], "--custom-tokenizer"],
  [moreOptions, ["trtllm"], "--extra-llm-api-options", "--config"],
  [readsFile, ["trtllm"], "--metadata-server-config-file"],
  [{ why: "speaks gRPC, which the router does not" }, ["trtllm"], "--grpc"],
];

function rulesOf(engine: Engine): FlagRules {
  const refused: Record<string, Refusal> = {};
  for (const [refusal, by, ...flags] of refusals) {
    if (by.includes(engine)) { for (const f of flags) refused[f] = refusal; }
  }
  return { engine, ...engines[engine], refused };
}

export const llamacppFlagRules: FlagRules = rulesOf("llamacpp");
export const vllmFlagRules: FlagRules = rulesOf("vllm");
export const sglangFlagRules: FlagRules = rulesOf("sglang");
export const trtllmFlagRules: FlagRules = rulesOf("trtllm");
export const teiFlagRules: FlagRules = rulesOf("tei");
export const simFlagRules: FlagRules = rulesOf("sim");

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
