/**
 * `changeResources(model, set, snapshot, profile = 0)`: the catalog side of `ctl model resources
 * NAME --memory GB --cores N`. Pure. Refused, with figures, when no node that could run the
 * profile (its engine, enough cards) has that many cores or that much memory in all — such a
 * change would only leave the model unplaceable. Nodes are judged by their size, not what is
 * free now: what other replicas hold comes back. With no such node known yet there is nothing
 * to judge by, and the change is taken. Otherwise the changed model, whose replicas the
 * reconciler then restarts one by one.
 */
import type { ClusterSnapshot } from "./cluster_snapshot.ts";
import { formatBytes, GiB } from "./memory_estimate.ts";
import type { CatalogModel } from "./replica_need.ts";

export type ResourcesChangeResult =
  | { ok: true; model: CatalogModel }
  | { ok: false; message: string };

export function changeResources(
  model: CatalogModel,
  set: { memoryGb?: number; cores?: number },
  snapshot: ClusterSnapshot,
  profile = 0,
): ResourcesChangeResult {
  const p = model.def.profiles[profile];
  if (!p) return { ok: false, message: `the model has no profile ${profile}` };
  if (set.memoryGb === undefined && set.cores === undefined) {
    return { ok: false, message: "give --memory GB and/or --cores N" };
  }
  if (set.cores !== undefined && (!Number.isInteger(set.cores) || set.cores < 1)) {
    return { ok: false, message: "give a whole number of cores, 1 or more" };
  }
  if (set.memoryGb !== undefined && !(set.memoryGb > 0)) {
    return { ok: false, message: "give the memory in GB, more than 0" };
  }
  const nodes = snapshot.nodes.filter((n) =>
    n.engines.includes(p.engine) && n.gpus.length >= p.gpus
  );
  if (nodes.length) {
    const cores = Math.max(...nodes.map((n) => n.cpuCores));
    if (set.cores !== undefined && set.cores > cores) {
      return {
        ok: false,
        message: `no node has ${set.cores} cores (the most on one node is ${cores})`,
      };
    }
    const ram = Math.max(...nodes.map((n) => n.ramTotal));
    if (set.memoryGb !== undefined && set.memoryGb * GiB > ram) {
      return {
        ok: false,
        message: `no node has ${
          formatBytes(set.memoryGb * GiB)
        } of memory (the most on one node is ${formatBytes(ram)})`,
      };
    }
  }
  const next = { ...p };
  if (set.memoryGb !== undefined) next.memoryGb = set.memoryGb;
  if (set.cores !== undefined) next.cores = set.cores;
  const profiles = model.def.profiles.map((q, i) => (i === profile ? next : q));
  return { ok: true, model: { ...model, def: { ...model.def, profiles } } };
}
