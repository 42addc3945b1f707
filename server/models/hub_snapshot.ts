/**
 * The cluster as the reconciler sees it, built from the node registry (stored nodes: labels,
 * cordon) and the node hub (what each connected node last reported). A node's name in the
 * snapshot is its own name, or name#id-tail where two share one, so explanations read well.
 *
 * State: `ready` while connected; `not_ready` while disconnected for less than `replaceAfterMs`
 * (counted from its last message, and never from before this control plane started, so a
 * restart does not move every replica); `lost` after that — only `lost` moves replicas. The
 * grace is what lets an agent restart (an upgrade, a crash) come back to its engines still placed.
 * A node the hub saw go says more: lost as soon as its kept engines stop answering.
 */
import type { NodeRow } from "../nodes/node_store.ts";
import type { LiveNode } from "../nodes/node_hub.ts";
import type { ClusterSnapshot, GpuView, NodeView } from "./cluster_snapshot.ts";

export interface HubSnapshot {
  snapshot: ClusterSnapshot;
  /** Snapshot name → node id, and back. */
  idOf: Map<string, string>;
  nameOf: Map<string, string>;
  live: Map<string, LiveNode>;
}

export function hubSnapshot(
  rows: readonly NodeRow[],
  connected: readonly LiveNode[],
  opts: {
    now: number;
    startedAt: number;
    replaceAfterMs: number;
    /** What the hub saw of a node that is not connected (NodeHub.absence). */
    absence?: (nodeId: string) => "grace" | "lost" | undefined;
  },
): HubSnapshot {
  const live = new Map(connected.map((l) => [l.nodeId, l]));
  const count = new Map<string, number>();
  for (const r of rows) count.set(r.name, (count.get(r.name) ?? 0) + 1);
  const idOf = new Map<string, string>();
  const nameOf = new Map<string, string>();
  const nodes: NodeView[] = rows.map((r) => {
    const name = (count.get(r.name) ?? 0) > 1 ? `${r.name}#${r.id.slice(-6)}` : r.name;
    idOf.set(name, r.id);
    nameOf.set(r.id, name);
    const l = live.get(r.id);
    const hb = l?.heartbeat;
    const silentSince = Math.max(r.lastHeardAt ?? 0, opts.startedAt);
    const absence = l ? undefined : opts.absence?.(r.id);
    const state = l
      ? "ready"
      : absence
      ? (absence === "lost" ? "lost" : "not_ready")
      : opts.now - silentSince > opts.replaceAfterMs
      ? "lost"
      : "not_ready";
    const gpus: GpuView[] = (hb?.gpu?.gpus ?? []).map((g) => {
      const v: GpuView = { index: g.index, name: g.name, memoryTotal: g.memoryTotalBytes ?? 0 };
      if (g.memoryFreeBytes !== undefined) v.memoryFree = g.memoryFreeBytes;
      if (g.computeCapability) v.computeCapability = Number(g.computeCapability);
      return v;
    });
    return {
      name,
      state,
      cordoned: r.cordoned || r.draining,
      labels: r.labels,
      engines: (hb?.engines ?? []).map((e) => e.name),
      cpuCores: hb?.host?.cores ?? 0,
      ramTotal: hb?.host?.ramTotalBytes ?? 0,
      gpus,
      weights: [],
      replicas: [],
    };
  });
  return { snapshot: { nodes }, idOf, nameOf, live };
}
