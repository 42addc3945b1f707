/**
 * `round-robin`: each request to the next replica in turn, no affinity at all. Not a profile to
 * serve with; the baseline `llmgw bench multiturn` compares cache-aware placement against.
 */
import type { Picker } from "./picker.ts";

let turn = 0;

export const roundRobinPicker: Picker = {
  pick({ candidates }) {
    turn = (turn + 1) % 1_000_000_007;
    return candidates[turn % candidates.length]!;
  },
};
