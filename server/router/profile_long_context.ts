/**
 * `long-context`: the replica with the most free KV cache wins, so a long prompt lands where it
 * fits. An unreported cache is taken as half full (unknown is not empty); ties go to the shorter
 * queue.
 */
import { type Picker, queueDepth } from "./picker.ts";
import type { Replica } from "./replicas.ts";

export const longContextPicker: Picker = {
  pick({ candidates }) {
    let best: Replica = candidates[0]!;
    for (let i = 1; i < candidates.length; i++) {
      const r = candidates[i]!;
      const d = freeKv(r) - freeKv(best);
      if (d > 1e-9 || (Math.abs(d) <= 1e-9 && queueDepth(r) < queueDepth(best))) best = r;
    }
    return best;
  },
};

function freeKv(r: Replica): number {
  const kv = r.load.known ? r.load.kvCacheUsage : undefined;
  return kv === undefined ? 0.5 : 1 - kv;
}
