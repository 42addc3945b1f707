/** `batch`: the shortest queue wins (router in-flight and the engine's waiting requests). */
import { type Picker, queueDepth } from "./picker.ts";
import type { Replica } from "./replicas.ts";

export const batchPicker: Picker = {
  pick({ candidates }) {
    let best: Replica = candidates[0]!;
    let bestDepth = queueDepth(best) / best.slots;
    for (let i = 1; i < candidates.length; i++) {
      const r = candidates[i]!;
      // Relative to slots, so a replica that serves twice as many at once takes twice as many.
      const d = queueDepth(r) / r.slots;
      if (d < bestDepth) [best, bestDepth] = [r, d];
    }
    return best;
  },
};
