/** The replica list of `ctl replicas`, the admin API and the portal: one row per stored replica. */
import type { StoredReplica } from "./replica_records.ts";

export interface ReplicaRow {
  id: string;
  model: string;
  node: string;
  state: string;
  since: number;
  gpus: number[];
  /** What the replica holds on its node: host memory in bytes, and cores. */
  ramBytes: number;
  cores: number;
  inFlight: number;
  lastRequestAt?: number;
  reason?: string;
  fetched?: { bytes: number; total?: number; percent?: number };
}

/** Rows by model, oldest first; `nodeName` turns a node id into the name people know. */
export function replicaRows(
  replicas: readonly StoredReplica[],
  nodeName: (nodeId: string) => string,
  model?: string,
): ReplicaRow[] {
  return replicas.filter((s) => !model || s.model === model)
    .sort((a, b) => a.model.localeCompare(b.model) || a.createdAt - b.createdAt)
    .map((s) => {
      const row: ReplicaRow = {
        id: s.id,
        model: s.model,
        node: nodeName(s.nodeId),
        state: s.state,
        since: s.stateSince,
        gpus: s.gpus,
        ramBytes: s.ramBytes,
        cores: s.cores,
        inFlight: s.inFlight,
      };
      if (s.lastRequestAt !== undefined) row.lastRequestAt = s.lastRequestAt;
      if (s.reason !== undefined) row.reason = s.reason;
      if (s.fetched) {
        row.fetched = {
          ...s.fetched,
          ...(s.fetched.total
            ? { percent: Math.floor((100 * s.fetched.bytes) / s.fetched.total) }
            : {}),
        };
      }
      return row;
    });
}
