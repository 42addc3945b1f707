/**
 * Stops engines a previous agent recorded and left running (it was SIGKILLed or crashed before it
 * could stop them). A record is acted on only when its pid still leads its own process group and
 * started when recorded, so a reused pid is never signalled.
 */
import type { Logger } from "../core/log.ts";
import { readStat } from "./proc_tree.ts";
import type { ReplicaRecord } from "./replica_registry.ts";
import { StopRefusedError } from "./stop_refused_error.ts";
import { terminateGroup } from "./terminate_group.ts";

/** Returns how many were stopped. */
export async function reapOrphans(
  records: readonly ReplicaRecord[],
  graceMs: number,
  log: Logger,
): Promise<number> {
  let reaped = 0;
  await Promise.all(records.map(async (r) => {
    const stat = readStat(r.pid);
    if (!stat || stat.state === "Z" || stat.pgid !== r.pid) return;
    if (r.procStart === undefined || stat.startTime !== r.procStart) return;
    log.warn("stopping an engine a previous agent left running", {
      replicaId: r.replicaId,
      engine: r.engine,
      pid: r.pid,
    });
    try {
      await terminateGroup(r.pid, graceMs);
      reaped++;
    } catch (e) {
      if (!(e instanceof StopRefusedError)) throw e;
      log.error("could not stop an engine a previous agent left running", {
        replicaId: r.replicaId,
        pid: r.pid,
        error: e.message,
      });
    }
  }));
  return reaped;
}
