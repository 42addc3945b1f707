/**
 * `changeGpus(model, cards, snapshot, profile = 0)`: the catalog side of `ctl model gpus NAME N`.
 * Pure. Refused, with figures, for a tensor-parallel width that does not divide (or is not a
 * multiple of) the KV heads, a count no node has, or cards that cannot hold weights + context +
 * engine; otherwise the changed model, whose replicas the reconciler then restarts one by one.
 * An engine that splits layers (llama.cpp) takes any count.
 */
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { type ClusterSnapshot, usableFraction } from "./cluster_snapshot.ts";
import { formatBytes } from "./memory_estimate.ts";
import { tensorParallelProblem } from "./placement.ts";
import { type CatalogModel, replicaNeed } from "./replica_need.ts";

export type GpusChangeResult = { ok: true; model: CatalogModel } | { ok: false; message: string };

export function changeGpus(
  model: CatalogModel,
  cards: number,
  snapshot: ClusterSnapshot,
  profile = 0,
): GpusChangeResult {
  const p = model.def.profiles[profile];
  if (!p) return { ok: false, message: `the model has no profile ${profile}` };
  if (!Number.isInteger(cards) || cards < 1) {
    return { ok: false, message: "give a whole number of cards, 1 or more" };
  }
  if (engineTraits[p.engine].tensorParallel) {
    const tp = tensorParallelProblem(cards, model.facts.kvHeads);
    if (tp) return { ok: false, message: tp };
  }
  const profiles = model.def.profiles.map((q, i) => (i === profile ? { ...q, gpus: cards } : q));
  const next: CatalogModel = { ...model, def: { ...model.def, profiles } };
  const need = replicaNeed(next, profiles[profile]!).perCard;
  const nodes = snapshot.nodes.filter((n) => n.engines.includes(p.engine));
  const most = Math.max(0, ...nodes.map((n) => n.gpus.length));
  if (most < cards) {
    return { ok: false, message: `no node has ${cards} cards (the most on one node is ${most})` };
  }
  let largest = 0;
  for (const n of nodes) {
    const sizes = n.gpus.map((g) => g.memoryTotal).sort((a, b) => b - a);
    largest = Math.max(largest, Math.floor((sizes[cards - 1] ?? 0) * usableFraction));
  }
  if (largest < need.total) {
    return {
      ok: false,
      message: `${cards} card(s) need ${formatBytes(need.total)} each (weights ${
        formatBytes(need.weights)
      }, context ${formatBytes(need.context)}, engine ${
        formatBytes(need.engine)
      }); the largest offer ${formatBytes(largest)}`,
    };
  }
  return { ok: true, model: next };
}
