/**
 * `chat`: session affinity plus time to first token. A session (one conversation, an
 * `x-session-id` or a `user`) goes to the replica that wins weighted rendezvous hashing, so it
 * keeps hitting the same engine's prompt cache and only ~1/N sessions move when a replica comes
 * or goes. A replica's weight falls with its smoothed time to first token relative to the
 * fastest's, in halvings (2× slower: half the sessions; 8× slower: an eighth), so a slower replica
 * wins fewer sessions, yet some, and jitter below 2× (or under `floorMs`) moves no session. A
 * replica not measured (or whose measure was forgotten) weighs as the fastest, so it is tried.
 */
import { fnv1a, rendezvousScore } from "./hash.ts";
import type { Picker } from "./picker.ts";
import type { Replica } from "./replicas.ts";

/** Differences in time to first token under this are not worth moving a conversation for. */
const floorMs = 50;

export const chatPicker: Picker = {
  pick({ candidates, sessionKey, now }) {
    if (candidates.length === 1) return candidates[0]!;
    let fastest = Infinity;
    for (const r of candidates) {
      const t = r.ttft.value(now);
      if (t !== undefined) fastest = Math.min(fastest, Math.max(t, floorMs));
    }
    let best: Replica = candidates[0]!;
    let bestScore = -1;
    for (const r of candidates) {
      const t = r.ttft.value(now);
      const w = t === undefined ? 1 : 2 ** -Math.floor(Math.log2(Math.max(t, floorMs) / fastest));
      const score = sessionKey === undefined
        // No session: the fastest replica per request in flight.
        ? w / (1 + r.inFlight)
        : rendezvousScore(sessionKey, nodeHash(r), w);
      if (score > bestScore) [best, bestScore] = [r, score];
    }
    return best;
  },
};

const nodeHashes = new WeakMap<Replica, number>();
function nodeHash(r: Replica): number {
  let h = nodeHashes.get(r);
  if (h === undefined) nodeHashes.set(r, h = fnv1a(r.id));
  return h;
}
