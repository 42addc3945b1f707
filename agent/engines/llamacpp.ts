/** llama.cpp's `llama-server`: one GGUF, `/health` 503 while loading and 200 once loaded. */
import type { EngineAdapter, EngineProfile, LaunchPlan, PlanInput } from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { detectBinary } from "./detect_binary.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { buildHasFlag, checkFlags, checkFlagsInBuild } from "../../core/engines/flag_gate.ts";
import { llamacppFlagRules } from "../../core/engines/engine_flag_rules.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";
import { llamacppDialect } from "./metric_dialect.ts";

/** "version: 6134 (9c4a2d1)" on stderr; a build without git metadata says "0 (unknown)". */
export function parseLlamacppVersion(output: string): string | undefined {
  const m = /version:\s*(\d+)\s*\(([^)]*)\)/.exec(output);
  if (!m) return undefined;
  const [, build, commit] = m;
  if (build === "0" && commit === "unknown") return undefined;
  return `b${build} (${commit})`;
}

/** The build number in a detected version ("b6134 (9c4a2d1b)" is 6134); undefined: unknown. */
export function llamacppBuild(version: string | undefined): number | undefined {
  const m = /^b(\d+)/.exec(version ?? "");
  return m ? Number(m[1]) : undefined;
}

/**
 * The host-memory prompt cache, on builds that have it: conversations evicted from a slot stay
 * in RAM for a later turn. llama-server's own default is 8 GiB per replica, unreserved; this
 * bound keeps it beside what placement counted for the node.
 */
export const promptCacheMiB = 2048;

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
  if (p.set?.role === "head" && p.set.workers?.length) out.push(...rpcHeadArgs(p));
  else if (p.gpuLayers !== undefined) out.push("-ngl", String(p.gpuLayers));
  if (p.mode === "embedding") out.push("--embeddings");
  else if (p.mode === "rerank") out.push("--reranking");
  else out.push("--jinja");
  return out;
}

/**
 * A set's head: its RPC workers are devices to llama-server (`--rpc`, in order), and `-ngl`
 * offloads that many of the last layers to devices, split among them by `-ts`. On a CPU head the
 * devices are the workers alone, so what is not offloaded stays on the head; on a GPU head its
 * own cards come first in the device list and take the head's layers.
 */
function rpcHeadArgs(p: EngineProfile): string[] {
  const set = p.set!;
  const workers = set.workers!;
  const shares = workers.map((w) => w.layers ?? 1);
  const onWorkers = shares.reduce((a, l) => a + l, 0);
  const cards = p.gpuLayers !== undefined && p.gpuLayers > 0;
  const out = ["--rpc", workers.map((w) => w.address).join(",")];
  if (cards) {
    out.push("-ngl", "999", "-ts", [set.layers ?? 1, ...shares].join(","));
  } else {
    out.push("-ngl", String(onWorkers));
    if (workers.length > 1) out.push("-ts", shares.join(","));
  }
  return out;
}

/** The lines where llama-server says what it put on each RPC worker. */
export function rpcBufferLines(output: string): string[] {
  return output.split("\n").filter((l) => /RPC\[[^\]]*\] (model|KV) buffer size/.test(l))
    .map((l) => l.trim());
}

/**
 * A set's worker: `rpc-server` on loopback (it has no authentication; only the agent's tunnel
 * reaches it), offering the memory placement gave it, so llama-server's split by free memory
 * agrees with the plan's.
 */
export const llamacppWorkerAdapter: EngineAdapter = {
  name: "llamacpp",
  requirements: { gpu: engineTraits.llamacpp.gpu },
  detect: (opts) =>
    detectBinary({
      engine: "llamacpp",
      name: "rpc-server",
      versionArgs: ["--help"],
      parseVersion: () => undefined,
      versionTimeoutMs: 10_000,
    }, opts),
  ...httpProbes,
  probe: "tcp",
  dialect: llamacppDialect,
  plan(input: PlanInput): LaunchPlan {
    const mem = input.profile?.set?.memoryBytes;
    return {
      cmd: input.binary ?? "rpc-server",
      args: [
        "-H",
        "127.0.0.1",
        "-p",
        String(input.port),
        ...(mem ? ["-m", String(Math.max(1, Math.floor(mem / 1024 ** 2)))] : []),
      ],
      env: {},
    };
  },
};

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
  worker: llamacppWorkerAdapter,
  readyNotes: rpcBufferLines,
  plan(input: PlanInput): LaunchPlan {
    if (!input.modelPath) {
      throw new LaunchPlanError("llamacpp", "a GGUF file (modelPath) is needed");
    }
    checkFlags(llamacppFlagRules, input.args, input.allowFlags);
    const build = llamacppBuild(input.version);
    checkFlagsInBuild(llamacppFlagRules, input.args, build);
    const cacheRam = buildHasFlag(llamacppFlagRules, "--cache-ram", build) &&
      !input.args.some((a) => a === "--cache-ram" || a === "-cram" || a.startsWith("--cache-ram="));
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
        // The router saves a conversation's slot to disk when another takes the slot and
        // restores it when it returns (server/router/slot_keeper.ts): into the engine's own
        // directory, its cwd. Files are named by session hash, never by prompt.
        "--slot-save-path",
        "./",
        // Reuse cached chunks of at least this many tokens even when the prompt shifted.
        "--cache-reuse",
        "256",
        ...(cacheRam ? ["--cache-ram", String(promptCacheMiB)] : []),
        ...llamacppProfileArgs(input.profile),
        ...input.args,
      ],
      env: { LLAMA_API_KEY: input.apiKey },
    };
  },
};
