/**
 * What placement, plan and the reconciler know of the cluster: one read-only snapshot the lead
 * fills from the node registry (agents' host reports and heartbeats) and the replica table. All
 * sizes are bytes; "absent" means not reported, never 0.
 *
 * Card room: a card offers 90 % of its memory (driver, fragmentation); what is taken from that is
 * the larger of what our replicas reserve on it and what the driver says is used. The larger, so
 * that a replica still loading (reserved, not yet used) and a process that is not ours (used, not
 * reserved) both count.
 */

export type NodeState = "ready" | "not_ready" | "lost";

export interface GpuView {
  index: number;
  name?: string;
  memoryTotal: number;
  /** As the driver reports it now; absent when not reported. */
  memoryFree?: number;
  /** CUDA compute capability, e.g. 8.9; absent when not reported. */
  computeCapability?: number;
}

/** What one replica holds on a node: its cards (with the bytes reserved on each), RAM and cores. */
export interface ReplicaUse {
  replicaId: string;
  model: string;
  gpus: number[];
  perCardBytes: number;
  ramBytes: number;
  cores: number;
}

export interface NodeView {
  name: string;
  state: NodeState;
  cordoned: boolean;
  labels: Record<string, string>;
  /** Engines installed on the node (`llamacpp`, `vllm`, `sim`). */
  engines: string[];
  cpuCores: number;
  ramTotal: number;
  gpus: GpuView[];
  /** Keys of weights already on the node's disk (`weightsKey` of a model). */
  weights: string[];
  /** Replicas the node runs or is starting, as it (or the replica table) says. */
  replicas: ReplicaUse[];
}

export interface ClusterSnapshot {
  nodes: NodeView[];
}

export const usableFraction = 0.9;
export const roleLabel = "llmgw.role";

/** Bytes still offered on one card of `node` for a new replica. */
export function cardRoom(node: NodeView, gpu: GpuView, ignore: ReadonlySet<string> = new Set()) {
  let reserved = 0;
  for (const s of node.replicas) {
    if (!ignore.has(s.replicaId) && s.gpus.includes(gpu.index)) reserved += s.perCardBytes;
  }
  // The driver's "used" includes replicas we are asked to ignore; leave their reservation out of
  // it too, so a restart's plan can count the room the old replica gives back.
  let ignoredHere = 0;
  for (const s of node.replicas) {
    if (ignore.has(s.replicaId) && s.gpus.includes(gpu.index)) ignoredHere += s.perCardBytes;
  }
  const used = gpu.memoryFree === undefined
    ? 0
    : Math.max(0, gpu.memoryTotal - gpu.memoryFree - ignoredHere);
  return Math.floor(gpu.memoryTotal * usableFraction) - Math.max(reserved, used);
}

export function ramRoom(node: NodeView, ignore: ReadonlySet<string> = new Set()): number {
  return node.ramTotal -
    node.replicas.reduce((a, s) => a + (ignore.has(s.replicaId) ? 0 : s.ramBytes), 0);
}

export function coreRoom(node: NodeView, ignore: ReadonlySet<string> = new Set()): number {
  return node.cpuCores -
    node.replicas.reduce((a, s) => a + (ignore.has(s.replicaId) ? 0 : s.cores), 0);
}

/** Adds replicas the table knows of but the node has not reported yet (just started). */
export function withReplicas(
  snapshot: ClusterSnapshot,
  replicas: ReplicaUse[],
  nodeOf: Map<string, string>,
) {
  const nodes = snapshot.nodes.map((n) => {
    const known = new Set(n.replicas.map((s) => s.replicaId));
    const extra = replicas.filter((s) =>
      nodeOf.get(s.replicaId) === n.name && !known.has(s.replicaId)
    );
    return extra.length ? { ...n, replicas: [...n.replicas, ...extra] } : n;
  });
  return { nodes };
}
