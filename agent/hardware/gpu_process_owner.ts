/**
 * Which replica a GPU process belongs to, so a card's memory is charged to the right replica and
 * not read as "someone else's". A process is a replica's when it is the replica's process, in the
 * replica's process group, or a descendant of it: some engines start their worker in a group of its
 * own (setsid), and that worker is the one holding the card.
 */
import type { GpuReport } from "../../core/protocol/host_report.ts";
import { type ProcStat, readStat } from "../proc_tree.ts";

export interface ReplicaProcess {
  readonly replicaId: string;
  /** The engine's main process, as the supervisor started it. */
  readonly pid: number;
}

/** Bounded, as in the original: no engine tree is deeper, and a pid reused mid-walk must not loop. */
const maxAncestry = 16;

export function ownerOf(
  pid: number,
  replicas: readonly ReplicaProcess[],
  stat: (pid: number) => ProcStat | undefined = readStat,
): string | undefined {
  const direct = replicas.find((s) => s.pid === pid);
  if (direct) return direct.replicaId;
  const own = stat(pid);
  if (!own) return undefined;
  // Only a group the replica leads counts: engines are started with setsid, and a replica that shared
  // the agent's group would otherwise claim every process the agent started.
  const byGroup = replicas.find((s) => s.pid === own.pgid);
  if (byGroup) return byGroup.replicaId;
  let parent = own.ppid;
  for (let step = 0; step < maxAncestry && parent > 1; step++) {
    const hit = replicas.find((s) => s.pid === parent);
    if (hit) return hit.replicaId;
    parent = stat(parent)?.ppid ?? 0;
  }
  return undefined;
}

/** The report with `replicaId` set on every process a replica owns (a copy; the input is kept). */
export function attributeGpuProcesses(
  report: GpuReport,
  replicas: readonly ReplicaProcess[],
  stat: (pid: number) => ProcStat | undefined = readStat,
): GpuReport {
  const live = replicas.filter((s) => s.pid > 1);
  return {
    ...report,
    gpus: report.gpus.map((card) => ({
      ...card,
      processes: card.processes.map((p) => {
        const { replicaId: _old, ...rest } = p;
        const replicaId = live.length ? ownerOf(p.pid, live, stat) : undefined;
        return replicaId === undefined ? rest : { ...rest, replicaId };
      }),
    })),
  };
}
