/**
 * The agent's settings: DATA/agent.yaml (written by `llmgw join`), each also a flag and an
 * environment variable (flag over env over file over default).
 */
import { int, oneOf, type Resolved, resolveSettings, text } from "../core/settings.ts";
import { gpuSettings } from "./hardware/gpu_settings.ts";

export const agentSettings = {
  controlUrls: text(
    "control_urls",
    "",
    "The control planes' cluster URLs (https), comma-separated; the agent tries each in turn",
  ),
  name: text("name", "", "This node's name (empty: the host name)"),
  labels: text(
    "labels",
    "",
    "Labels this node reports, k=v comma-separated; they add to those of its join code",
  ),
  weightsDir: text("weights_dir", "", "Where model weights are kept (empty: DATA/weights)"),
  hfEndpoint: text(
    "weights.hf_endpoint",
    "https://huggingface.co",
    "The Hugging Face hub weights are fetched from when no mirror has them (empty: mirrors only)",
  ),
  engineHost: text(
    "engines.host",
    "127.0.0.1",
    "Address engines bind and the router reaches them at; a node on another machine needs its cluster address",
  ),
  enginePorts: text(
    "engines.ports",
    "30000-30999",
    "Ports engines listen on (first-last), each checked free before use (empty: any free port)",
  ),
  llamaServer: text(
    "engines.llama_server",
    "llama-server",
    "The llama.cpp server binary (a name on PATH or a path)",
  ),
  vllm: text("engines.vllm", "vllm", "The vLLM executable (a name on PATH or a path)"),
  sglang: text(
    "engines.sglang",
    "python3",
    "The Python that has SGLang installed (a name on PATH or a path); it runs sglang.launch_server",
  ),
  trtllm: text(
    "engines.trtllm",
    "python3",
    "The Python that has TensorRT-LLM installed (a name on PATH or a path); it runs trtllm-serve",
  ),
  tei: text(
    "engines.tei",
    "text-embeddings-router",
    "The text-embeddings-inference server binary (a name on PATH or a path)",
  ),
  rpcServer: text(
    "engines.rpc_server",
    "rpc-server",
    "llama.cpp's rpc-server binary (built with GGML_RPC), run when this node lends memory to a model split across nodes",
  ),
  memoryOfferedMb: int(
    "resources.memory_mb",
    0,
    "Memory this node offers replicas, in MiB (0: all it has); what placement counts as its total",
    { min: 0 },
  ),
  engineRunAs: text(
    "engines.run_as",
    "",
    "Run engines as USER or USER:GROUP through setpriv (the agent needs CAP_SETUID/CAP_SETGID; empty: the agent's user)",
  ),
  engineReadyTimeoutMs: int(
    "engines.ready_timeout_ms",
    180_000,
    "How long an engine may take to load its model before it counts as failed, in ms",
    { min: 1_000 },
  ),
  engineHealthIntervalMs: int(
    "engines.health_interval_ms",
    10_000,
    "How often each ready engine's health route is probed, in ms; a hung engine is found this way (0: never)",
    { min: 0 },
  ),
  slotFilesMaxMb: int(
    "engines.slot_files_max_mb",
    8192,
    "Conversation caches llama.cpp saves to disk, most MB kept per engine (oldest go first; all go when the engine stops)",
    { min: 0 },
  ),
  slotFilesMaxAgeMin: int(
    "engines.slot_files_max_age_min",
    60,
    "Minutes a saved conversation cache is kept after it was last written",
    { min: 1 },
  ),
  engineHealthFailures: int(
    "engines.health_failures",
    3,
    "Health probes failed in a row before an engine counts as unhealthy (out of routing); as many more and it is restarted",
    { min: 1, max: 1000 },
  ),
  heartbeatMs: int(
    "channel.heartbeat_ms",
    2_000,
    "How often a heartbeat is sent until the control plane says otherwise, in ms",
    { min: 50 },
  ),
  idleMs: int(
    "channel.idle_ms",
    5_000,
    "Silence after which the agent pings the control plane, in ms",
    { min: 50 },
  ),
  answerMs: int(
    "channel.answer_ms",
    3_000,
    "How long a ping may go unanswered before the agent reconnects, in ms",
    { min: 50 },
  ),
  reconnectMaxMs: int(
    "channel.reconnect_max_ms",
    10_000,
    "Longest wait between reconnection attempts (they back off with jitter up to this), in ms",
    { min: 100 },
  ),
  logLevel: oneOf(
    "log_level",
    ["debug", "info", "warn", "error"],
    "info",
    "Least severe log level written",
  ),
  ...gpuSettings,
};

export type AgentConfig = Resolved<typeof agentSettings> & { dataDir: string };

/** The agent's data directory: flag and env only, since agent.yaml lives inside it. */
export const agentLocation = {
  dataDir: text("data_dir", "./agent-data", "The node's data directory (agent.yaml, credential)", {
    flag: "data",
    env: "LLMGW_AGENT_DATA",
  }),
};

export async function loadAgentConfig(
  opts: {
    flags: Record<string, string | boolean | undefined>;
    env: Record<string, string | undefined>;
  },
): Promise<AgentConfig> {
  const { dataDir } = resolveSettings(agentLocation, opts);
  const path = `${dataDir}/agent.yaml`;
  let yaml: { path: string; text: string } | undefined;
  try {
    yaml = { path, text: await Deno.readTextFile(path) };
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return { ...resolveSettings(agentSettings, { ...opts, ...(yaml ? { yaml } : {}) }), dataDir };
}

/** `a=b,c=d` → {a: "b", c: "d"}; throws a TypeError naming the bad part. */
export function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new TypeError(`label '${part}' must be key=value`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

export function splitUrls(text: string): string[] {
  return text.split(",").map((s) => s.trim().replace(/\/$/, "")).filter(Boolean);
}

/**
 * The node's credential may only travel inside TLS, except to a control plane on this same
 * machine. Throws a TypeError saying why a URL is refused.
 */
export function checkControlUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError(`'${url}' is not a URL`);
  }
  if (u.protocol === "https:") return u;
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname) ||
    u.hostname.startsWith("127.");
  if (u.protocol === "http:" && loopback) return u;
  throw new TypeError(
    `refusing control URL ${url}: the node credential only goes over https (plain http only to this machine's loopback)`,
  );
}

/**
 * The resolved text of the setting whose key is `key` (an engine's `binarySetting`, say
 * "engines.vllm"); undefined when no text setting has that key.
 */
export function settingText(config: AgentConfig, key: string): string | undefined {
  for (const [field, def] of Object.entries(agentSettings)) {
    if (def.key !== key) continue;
    const value = config[field as keyof AgentConfig];
    return typeof value === "string" ? value : undefined;
  }
  return undefined;
}
