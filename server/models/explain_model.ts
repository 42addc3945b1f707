/**
 * `explainModel(model, snapshot, shards)`: `ctl model explain NAME` and the admin API behind it.
 * For each profile (in the order the reconciler tries them): what one more replica needs, every
 * node considered with the constraint that rejected it (as data) and the same as text. Read-only;
 * room counts the shards the table has started but agents have not reported yet.
 */
import { type ClusterSnapshot, withReplicas } from "./cluster_snapshot.ts";
import { explainText, place, type PlacementRequest, type PlaceResult } from "./placement.ts";
import { type CatalogModel, replicaNeed } from "./replica_need.ts";
import { liveStates, type Replica, replicaUse } from "./replica.ts";

export interface ProfileExplanation {
  profile: number;
  request: PlacementRequest;
  result: PlaceResult;
  text: string;
}

export function explainModel(
  model: CatalogModel,
  snapshot: ClusterSnapshot,
  shards: readonly Replica[],
): ProfileExplanation[] {
  const occupying = shards.filter((s) => liveStates.has(s.state) || s.state === "draining");
  const view = withReplicas(
    snapshot,
    occupying.map(replicaUse),
    new Map(occupying.map((s) => [s.id, s.node])),
  );
  return model.def.profiles
    .map((p, i) => ({ p, i }))
    .sort((a, b) => b.p.priority - a.p.priority || a.i - b.i)
    .map(({ p, i }) => {
      const { request } = replicaNeed(model, p);
      const result = place(request, view.nodes);
      return { profile: i, request, result, text: explainText(request, result) };
    });
}
