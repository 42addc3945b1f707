/**
 * `ctl model plan` for a model no single node holds, on an engine that spans nodes: the layout
 * that splits it across the fewest nodes (place_across.ts), with each node's part.
 */
import type { NodeView } from "./cluster_snapshot.ts";
import { placeAcross } from "./place_across.ts";
import type { Layout } from "./plan.ts";
import type { replicaNeed } from "./replica_need.ts";

/** Card counts per node to try for a split, widest first (fewest nodes); the CPU when no cards. */
export function gpuWidths(gpu: boolean, widths: number[]): number[] {
  return gpu ? [...widths].reverse() : [0];
}

/**
 * The set of nodes that would hold a replica no node holds alone: with today's room if it can,
 * else on empty nodes (it waits for room). The fewest nodes over the widths tried.
 */
export function splitLayout(
  widths: number[],
  needFor: (gpus: number) => ReturnType<typeof replicaNeed>,
  pool: NodeView[],
  layers: number | undefined,
): Layout | undefined {
  let best: Layout | undefined;
  for (const gpus of widths) {
    const need = needFor(gpus);
    const now = placeAcross(need.request, pool, layers);
    const empty = now.ok
      ? now
      : placeAcross(need.request, pool.map((n) => ({ ...n, replicas: [] })), layers);
    if (!empty.ok || (best && best.split!.length <= empty.members.length)) continue;
    const names = empty.members.map((m) => m.node);
    best = {
      device: gpus > 0 ? "gpu" : "cpu",
      gpus,
      total: {
        weights: need.estimate.weights,
        context: need.estimate.context,
        engine: need.estimate.total - need.estimate.weights - need.estimate.context,
        total: need.estimate.total,
      },
      nodes: names,
      freeNow: now.ok ? names : [],
      busy: [],
      split: empty.members,
    };
    if (gpus > 0) best.perCard = need.perCard;
  }
  return best;
}
