/**
 * Replicas (replicas) as the control plane records them, the commands the reconciler issues, and
 * `applyCommands(replicas, commands, now)`, the one way those commands change the record (the
 * lead's replica table applies the same, then sends each command to its node's agent).
 *
 * States: pending → fetching → starting → ready → draining → stopped, or failed (with the
 * reason). Agents report fetching/starting/ready/failed; the reconciler's commands set pending
 * (start), draining (drain) and stopped (stop).
 */
import { type ClusterSnapshot, type ReplicaUse, withReplicas } from "./cluster_snapshot.ts";
import type { ReplicaSet } from "../../core/protocol/messages.ts";

export const replicaStates = [
  "pending",
  "fetching",
  "starting",
  "ready",
  "draining",
  "stopped",
  "failed",
] as const;
export type ReplicaState = (typeof replicaStates)[number];

export interface Replica {
  id: string;
  model: string;
  node: string;
  /** Index into the model's profiles. */
  profile: number;
  gpus: number[];
  perCardBytes: number;
  ramBytes: number;
  cores: number;
  /** `specHash` of what it was started with; a different desired hash means restart. */
  specHash: string;
  state: ReplicaState;
  createdAt: number;
  stateSince: number;
  readyAt?: number;
  /** From the router: the last request sent to it, and requests it is answering now. */
  lastRequestAt?: number;
  inFlight: number;
  reason?: string;
  /** While fetching: bytes so far and in all, when known. */
  fetched?: { bytes: number; total?: number };
  /** Last time its download moved or its state changed; the startup timeout counts from it. */
  progressAt?: number;
}

/** Occupies a node (cards, memory, cores) and may answer or soon will. */
export const liveStates: ReadonlySet<ReplicaState> = new Set([
  "pending",
  "fetching",
  "starting",
  "ready",
]);

export interface StartCommand {
  kind: "start";
  replicaId: string;
  model: string;
  node: string;
  profile: number;
  engine: string;
  /** The profile's extra args; the node's engine adapter adds context, slots, cards, model. */
  args: string[];
  gpus: number[];
  perCardBytes: number;
  ramBytes: number;
  cores: number;
  source: string;
  contextLength: number;
  slots: number;
  embeddings: boolean;
  allowPickle: boolean;
  specHash: string;
  reason: string;
  /** Its part in a replica over several nodes (replica_set.ts); absent: a replica of its own. */
  set?: ReplicaSet;
  /** A head is started only once these workers are ready (the reconciler sends it then). */
  after?: string[];
}

export interface StopCommand {
  kind: "drain" | "stop";
  replicaId: string;
  model: string;
  node: string;
  reason: string;
  /** The replica failed (the record says `failed`, and the model backs off before retrying). */
  failed?: boolean;
}

export type Command = StartCommand | StopCommand;

/** Records what the commands mean: a start adds a pending replica, drain and stop change state. */
export function applyCommands(
  replicas: readonly Replica[],
  commands: readonly Command[],
  now: number,
) {
  const out = replicas.map((s) => ({ ...s }));
  const byId = new Map(out.map((s) => [s.id, s]));
  for (const c of commands) {
    if (c.kind === "start") {
      const s: Replica = {
        id: c.replicaId,
        model: c.model,
        node: c.node,
        profile: c.profile,
        gpus: c.gpus,
        perCardBytes: c.perCardBytes,
        ramBytes: c.ramBytes,
        cores: c.cores,
        specHash: c.specHash,
        state: "pending",
        createdAt: now,
        stateSince: now,
        inFlight: 0,
      };
      out.push(s);
      byId.set(s.id, s);
      continue;
    }
    const s = byId.get(c.replicaId);
    if (!s) continue;
    s.state = c.kind === "drain" ? "draining" : c.failed ? "failed" : "stopped";
    s.stateSince = now;
    s.reason = c.reason;
  }
  return out;
}

/**
 * The cluster with the room its live replicas hold (what agents report plus what the table has
 * started that they have not yet): what the plan, explain and the reconciler's step all place on.
 */
export function inUse(snapshot: ClusterSnapshot, replicas: readonly Replica[]): ClusterSnapshot {
  const occupying = replicas.filter((s) => liveStates.has(s.state) || s.state === "draining");
  return withReplicas(
    snapshot,
    occupying.map(replicaUse),
    new Map(occupying.map((s) => [s.id, s.node])),
  );
}

/** What a replica takes from its node, as placement counts it. */
export function replicaUse(s: Replica): ReplicaUse {
  return {
    replicaId: s.id,
    model: s.model,
    gpus: s.gpus,
    perCardBytes: s.perCardBytes,
    ramBytes: s.ramBytes,
    cores: s.cores,
  };
}
