/**
 * `explainModel(model, snapshot, replicas)`: `ctl model explain NAME` and the admin API behind it.
 * First where each live replica is and why: its node, cards, memory and cores, the profile it
 * was placed for, and its node judged again for it with its own room counted free (so a running
 * replica never reads "no node fits" because it fills its own node). Then, per profile (in the
 * order the reconciler tries them), what a new replica would need: every node considered with
 * the constraint that rejected it (as data) and the same as text. Read-only; room counts the
 * replicas the table has started but agents have not reported yet.
 */
import type { ClusterSnapshot } from "./cluster_snapshot.ts";
import {
  explainText,
  type NodeVerdict,
  place,
  type PlacementRequest,
  type PlaceResult,
} from "./placement.ts";
import { formatBytes } from "./memory_estimate.ts";
import { type CatalogModel, replicaNeed } from "./replica_need.ts";
import { inUse, liveStates, type Replica } from "./replica.ts";
import { headOf, isWorker, workersOf } from "./replica_set.ts";
import { type AcrossResult, explainAcross, placeAcross } from "./place_across.ts";
import { explainSummary } from "./explain_summary.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";

export interface ProfileExplanation {
  profile: number;
  request: PlacementRequest;
  result: PlaceResult;
  /** No single node holds it and its engine spans nodes: the set that would. */
  across?: AcrossResult;
  text: string;
}

export interface ReplicaExplanation {
  id: string;
  node: string;
  state: string;
  profile: number;
  gpus: number[];
  perCardBytes: number;
  ramBytes: number;
  cores: number;
  /** Its node, judged for this replica's profile with the replica's own room free. */
  verdict?: NodeVerdict;
  text: string;
}

export interface ModelExplanation {
  replicas: ReplicaExplanation[];
  /** What one more replica would need, per profile. */
  profiles: ProfileExplanation[];
}

export function explainModel(
  model: CatalogModel,
  snapshot: ClusterSnapshot,
  replicas: readonly Replica[],
): ModelExplanation {
  return {
    replicas: explainReplicas(model, snapshot, replicas),
    profiles: explainNewReplica(model, snapshot, replicas),
  };
}

function explainReplicas(
  model: CatalogModel,
  snapshot: ClusterSnapshot,
  replicas: readonly Replica[],
): ReplicaExplanation[] {
  const view = inUse(snapshot, replicas);
  const live = replicas.filter((s) =>
    s.model === model.def.name && (liveStates.has(s.state) || s.state === "draining")
  );
  return live.map((s) => {
    const p = model.def.profiles[s.profile];
    const node = view.nodes.find((n) => n.name === s.node);
    const inSet = isWorker(s.id) || workersOf(replicas, s.id).length > 0;
    const verdict = p && node && !inSet
      ? place({ ...replicaNeed(model, p).request, ignoreReplicas: new Set([s.id]) }, [node])
        .considered[0]
      : undefined;
    const where = s.gpus.length
      ? `card(s) ${s.gpus.join(",")} × ${formatBytes(s.perCardBytes)}`
      : "the CPU";
    const set = isWorker(s.id)
      ? `, worker of the set headed by ${headOf(s.id)}`
      : workersOf(replicas, s.id).length
      ? `, head of a set with ${workersOf(replicas, s.id).map((w) => w.node).join(", ")}`
      : "";
    const profile = p ? `profile ${s.profile} (${p.engine}${p.name ? `, ${p.name}` : ""})` : "";
    const why = !node
      ? "its node is not known now"
      : inSet
      ? "no single node holds the model, so this node holds a part of it"
      : !verdict
      ? "its profile is gone (the model changed): it is replaced"
      : verdict.ok
      ? `the node still ${verdict.reason.replace(/^fits/, "fits it")}`
      : `the node would not take it now: (${verdict.constraint}) ${verdict.reason}`;
    return {
      id: s.id,
      node: s.node,
      state: s.state,
      profile: s.profile,
      gpus: s.gpus,
      perCardBytes: s.perCardBytes,
      ramBytes: s.ramBytes,
      cores: s.cores,
      ...(verdict ? { verdict } : {}),
      text: `replica ${s.id} on ${s.node} (${s.state}): ${where}, ${
        formatBytes(s.ramBytes)
      } memory, ${s.cores} core(s)${profile ? `, ${profile}` : ""}${set}; ${why}`,
    };
  });
}

function explainNewReplica(
  model: CatalogModel,
  snapshot: ClusterSnapshot,
  replicas: readonly Replica[],
): ProfileExplanation[] {
  const view = inUse(snapshot, replicas);
  return model.def.profiles
    .map((p, i) => ({ p, i }))
    .sort((a, b) => b.p.priority - a.p.priority || a.i - b.i)
    .map(({ p, i }) => {
      const { request } = replicaNeed(model, p);
      const result = place(request, view.nodes);
      const text = `a new replica: ${explainText(request, result)}`;
      if (result.ok || !engineTraits[p.engine].multiNode) {
        return { profile: i, request, result, text };
      }
      const across = placeAcross(request, view.nodes, model.facts.layers);
      return {
        profile: i,
        request,
        result,
        across,
        text: `${text}\n${explainAcross(explainSummary(result), across)}`,
      };
    });
}
