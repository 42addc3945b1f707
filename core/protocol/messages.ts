/**
 * The control channel's vocabulary: every message an agent and the control plane exchange over
 * their one WebSocket, as zod schemas both sides validate on receipt. A message that does not
 * parse is dropped and logged, never acted on.
 *
 * Conventions: objects are not strict (a newer peer may add fields; they are dropped, not
 * refused); a fact that was not read is absent, never a made-up zero. The node's credential is
 * never in a message: it travels in the upgrade request's Authorization header, over TLS.
 */
import { z } from "zod";
import { engineInstalledSchema, gpuReportSchema, hostInfoSchema } from "./host_report.ts";
import { loadSnapshotSchema } from "./load_snapshot.ts";

/** Bumped only for a change an older peer cannot ignore. */
export const protocolVersion = 2;

/** `unhealthy`: running but failing its health checks (hung); out of routing until it answers. */
export const replicaReportStates = [
  "starting",
  "ready",
  "unhealthy",
  "restarting",
  "failed",
  "stopped",
] as const;

/** One replica as the agent sees it. */
export const replicaReportSchema = z.object({
  replicaId: z.string().min(1),
  model: z.string(),
  engine: z.string(),
  state: z.enum(replicaReportStates),
  /** Where the router reaches the engine; a set's worker: `tls://host:port`, its tunnel. */
  baseUrl: z.string(),
  /** A set's worker: never routed to, only reached by its head. */
  role: z.enum(["head", "worker"]).optional(),
  /** 0 before the first process started. */
  pid: z.number().int().nonnegative(),
  restarts: z.number().int().nonnegative().optional(),
  startedAt: z.number().optional(),
  /** Requests the engine was launched to run at once (the router admits that many). */
  slots: z.number().int().positive().optional(),
  load: loadSnapshotSchema.optional(),
  /** Why the last start failed, with the tail of the engine's output; absent when it did not. */
  error: z.string().optional(),
});
export type ReplicaReport = z.infer<typeof replicaReportSchema>;

/**
 * A replica's part in a replica spread over several nodes (core/engines/engine_traits.ts
 * `multiNode`). A worker lends its node to the head: llama.cpp's `rpc-server` on loopback, reached
 * only through its agent's tunnel, which accepts the head's node alone. The head runs the engine
 * clients talk to and reaches each worker through a local port its own agent forwards. Nothing
 * here is secret: the tunnel's certificates come with the welcome, per node.
 */
export const replicaSetSchema = z.object({
  role: z.enum(["head", "worker"]),
  /** The head's node name: the only peer a worker's tunnel accepts. */
  head: z.string().min(1),
  /** Head: each worker in order, with where its agent's tunnel listens and its share. */
  workers: z.array(z.object({
    node: z.string().min(1),
    /** host:port of the worker agent's tunnel (its report's baseUrl, `tls://host:port`). */
    address: z.string().min(1),
    /** Layers (rpc) the worker holds. */
    layers: z.number().int().nonnegative().optional(),
  })).optional(),
  /** Head: layers kept on the head itself (rpc); pipeline: this node's stage. */
  layers: z.number().int().nonnegative().optional(),
  /** Nodes in the set, head included (pipeline stages). */
  nodes: z.number().int().positive().optional(),
  /** Pipeline (vLLM): this node's rank, 0 for the head, and where the head's rendezvous is. */
  rank: z.number().int().nonnegative().optional(),
  /** Worker: bytes of memory it offers the head's engine (`rpc-server -m`). */
  memoryBytes: z.number().int().nonnegative().optional(),
  /** Pipeline: host:port of the head's rendezvous (vLLM `--master-addr`, `--master-port`). */
  master: z.string().optional(),
});
export type ReplicaSet = z.infer<typeof replicaSetSchema>;

/**
 * What placement decided for a replica: the engine profile (context per request, slots, GPU layers,
 * tensor parallel, mode) and the cards it may see (CUDA_VISIBLE_DEVICES). Absent: the engine's
 * own defaults and every card (a replica started by hand).
 */
export const replicaLaunchSchema = z.object({
  contextLength: z.number().int().positive().optional(),
  parallel: z.number().int().positive().optional(),
  gpuLayers: z.number().int().nonnegative().optional(),
  tensorParallel: z.number().int().positive().optional(),
  mode: z.enum(["generate", "embedding", "rerank"]).optional(),
  allowPickle: z.boolean().optional(),
  gpus: z.array(z.number().int().nonnegative()).optional(),
  /** Its part in a replica over several nodes; absent: the replica is this replica alone. */
  set: replicaSetSchema.optional(),
});
export type ReplicaLaunch = z.infer<typeof replicaLaunchSchema>;

/** What a control plane may ask an agent to run. The key is the one the engine must require. */
export const replicaSpecSchema = z.object({
  replicaId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/),
  model: z.string().min(1),
  engine: z.string().min(1),
  modelPath: z.string().optional(),
  args: z.array(z.string()).default([]),
  apiKey: z.string().min(16),
  readyTimeoutMs: z.number().int().positive().optional(),
  launch: replicaLaunchSchema.optional(),
});
export type ReplicaSpec = z.infer<typeof replicaSpecSchema>;

// ---- agent → control plane ----

export const helloSchema = z.object({
  type: z.literal("hello"),
  protocol: z.number().int(),
  /** The agent's llmgw version. */
  version: z.string(),
  name: z.string().optional(),
  /** Labels from agent.yaml; they add to (and override) the join code's. */
  labels: z.record(z.string(), z.string()).optional(),
  /**
   * What the agent answers beyond its protocol version (`agentFeatures`): a request an agent
   * does not list is never sent, since an older agent drops a message it cannot parse unanswered.
   */
  features: z.array(z.string()).optional(),
});

/** The features this release's agent says it has in its hello. */
export const agentFeatures = { engineLog: "engine_log" } as const;

/** The most lines of an engine's log one request may ask for (what an agent keeps). */
export const engineLogMaxLines = 500;

export const heartbeatSchema = z.object({
  type: z.literal("heartbeat"),
  /** Absent until the hardware collector has answered once. */
  host: hostInfoSchema.optional(),
  gpu: gpuReportSchema.optional(),
  engines: z.array(engineInstalledSchema).optional(),
  replicas: z.array(replicaReportSchema),
  warnings: z.array(z.string()).default([]),
});
export type Heartbeat = z.infer<typeof heartbeatSchema>;

/** Sent the moment a replica changes state, so the router need not wait for the next heartbeat. */
export const replicaStateSchema = z.object({
  type: z.literal("replica_state"),
  replica: replicaReportSchema,
});

export const commandResultSchema = z.object({
  type: z.literal("command_result"),
  /** The id of the command answered. */
  id: z.string(),
  ok: z.boolean(),
  replica: replicaReportSchema.optional(),
  /** A sentence for the operator; for a failed start it ends with what the engine printed. */
  error: z.string().optional(),
  /** The engine's captured output when a start failed. */
  output: z.string().optional(),
  /** For `fetch_weights`: the local path an engine is given. */
  path: z.string().optional(),
});
export type CommandResult = z.infer<typeof commandResultSchema>;

/**
 * Progress of a `fetch_weights` command, at most every few seconds and at each phase's start and
 * end. `bytesTotal` is null when the size is not known: then only bytes are shown, never a percent.
 */
export const weightsProgressSchema = z.object({
  type: z.literal("weights_progress"),
  /** The id of the `fetch_weights` command. */
  id: z.string(),
  /** What is fetched, named without credentials. */
  source: z.string(),
  replicaId: z.string().optional(),
  phase: z.enum(["fetching", "checking"]),
  bytesDone: z.number().nonnegative(),
  bytesTotal: z.number().nonnegative().nullable(),
});
export type WeightsProgress = z.infer<typeof weightsProgressSchema>;

/** The answer to `engine_log`: the replica's last lines, secrets already hidden by the agent. */
export const engineLogLinesSchema = z.object({
  type: z.literal("engine_log_lines"),
  /** The id of the `engine_log` request answered. */
  id: z.string(),
  replicaId: z.string(),
  /** false: this agent holds no such replica. */
  found: z.boolean(),
  lines: z.array(z.string()).max(engineLogMaxLines),
  /** Started by an earlier agent: what it printed before this agent took over is not here. */
  adopted: z.boolean().optional(),
});
export type EngineLogLines = z.infer<typeof engineLogLinesSchema>;

const pingSchema = z.object({ type: z.literal("ping"), id: z.string() });
const pongSchema = z.object({ type: z.literal("pong"), id: z.string() });

export const agentMessageSchema = z.discriminatedUnion("type", [
  helloSchema,
  heartbeatSchema,
  replicaStateSchema,
  commandResultSchema,
  weightsProgressSchema,
  engineLogLinesSchema,
  pingSchema,
  pongSchema,
]);
export type AgentMessage = z.infer<typeof agentMessageSchema>;

// ---- control plane → agent ----

/**
 * The sending leader's lease epoch (server/control/leadership.ts), on the welcome and on every
 * command: an agent refuses one from an older epoch than it has seen (agent/epoch_fence.ts), so
 * a deposed leader that has not noticed yet cannot act on a node the new leader holds. Absent
 * from a control plane that leads alone, without a lease, and from older versions.
 */
const leaderEpoch = z.number().int().nonnegative().optional();

export const welcomeSchema = z.object({
  type: z.literal("welcome"),
  nodeId: z.string(),
  name: z.string(),
  /** The control plane's llmgw version. */
  version: z.string(),
  /** The protocol the control plane speaks (`protocolVersion`). */
  protocol: z.number().int().optional(),
  heartbeatMs: z.number().int().positive(),
  /**
   * Every replica this node is meant to run. The agent ensures each (a running one is adopted, not
   * restarted) and stops engines an earlier agent left that are not among them.
   */
  replicas: z.array(replicaSpecSchema),
  epoch: leaderEpoch,
  /**
   * This node's certificate in the cluster, signed by the cluster CA, with its key: what a set's
   * head and workers know each other by (CN `llmgw node NAME`). Fresh on every welcome, kept in
   * memory only, never logged.
   */
  tunnel: z.object({ certPem: z.string().min(1), keyPem: z.string().min(1) }).optional(),
});

export const startReplicaSchema = z.object({
  type: z.literal("start_replica"),
  id: z.string(),
  spec: replicaSpecSchema,
  epoch: leaderEpoch,
});
export const stopReplicaSchema = z.object({
  type: z.literal("stop_replica"),
  id: z.string(),
  replicaId: z.string(),
  epoch: leaderEpoch,
});
export const fetchWeightsSchema = z.object({
  type: z.literal("fetch_weights"),
  id: z.string(),
  source: z.string(),
  /** The pinned source (core/weights/pinned_source.ts), checked by the agent. */
  pinned: z.unknown().optional(),
  /** The replica waiting on these weights: its readiness clock counts from the last progress. */
  replicaId: z.string().optional(),
  /**
   * Mirror base URLs tried before the origin (files at `<base>/mirror/…`); absent: the node's own
   * default, its control planes' cluster listeners.
   */
  mirrors: z.array(z.string()).optional(),
  epoch: leaderEpoch,
});
export const removeWeightsSchema = z.object({
  type: z.literal("remove_weights"),
  id: z.string(),
  paths: z.array(z.string()),
  /** The pinned source whose files go, keeping those any source in `keep` names. */
  pinned: z.unknown().optional(),
  keep: z.array(z.unknown()).optional(),
  epoch: leaderEpoch,
});

/** Asks for a replica's last log lines; answered by `engine_log_lines`. Changes nothing. */
export const engineLogSchema = z.object({
  type: z.literal("engine_log"),
  id: z.string(),
  replicaId: z.string(),
  lines: z.number().int().min(1).max(engineLogMaxLines),
  epoch: leaderEpoch,
});

export const serverMessageSchema = z.discriminatedUnion("type", [
  welcomeSchema,
  startReplicaSchema,
  stopReplicaSchema,
  fetchWeightsSchema,
  removeWeightsSchema,
  engineLogSchema,
  pingSchema,
  pongSchema,
]);
export type ServerMessage = z.infer<typeof serverMessageSchema>;

/** Parses one frame; `undefined` with the reason for anything that is not a valid message. */
export function decodeMessage<T>(
  schema: z.ZodType<T>,
  data: unknown,
): { ok: true; message: T } | { ok: false; reason: string } {
  if (typeof data !== "string") return { ok: false, reason: "binary frame" };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  const r = schema.safeParse(json);
  if (r.success) return { ok: true, message: r.data };
  const issue = r.error.issues[0]!;
  return { ok: false, reason: `${issue.path.join(".") || "message"}: ${issue.message}` };
}
