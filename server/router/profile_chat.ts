/**
 * `chat`: session affinity that fills the engines' prompt caches, plus time to first token. A new
 * session (one conversation, an `x-session-id` or a `user`) goes to the first replica, in weighted
 * rendezvous order for its key, that holds fewer live sessions than it has slots: an engine keeps
 * about one conversation per slot, and more make them evict each other every turn. When every
 * replica is full it goes to the least full (live sessions per slot), ties in rendezvous order.
 * Rendezvous order moves only ~1/N sessions when a replica comes or goes, and the choice depends
 * only on the replica set and the session counts, so routers that see the same counts agree.
 *
 * A replica's weight falls with its smoothed time to first token relative to the fastest's, in
 * halvings (2× slower: half the sessions; 8× slower: an eighth), so a slower replica comes first
 * for fewer sessions, yet some, and jitter below 2× (or under `floorMs`) moves no session. A
 * replica not measured (or whose measure was forgotten) weighs as the fastest, so it is tried.
 */
import { fnv1a, rendezvousScore } from "./hash.ts";
import type { Picker, PickInput } from "./picker.ts";
import type { Replica } from "./replicas.ts";

/** Differences in time to first token under this are not worth moving a conversation for. */
const floorMs = 50;

export const chatPicker: Picker = {
  pick(input) {
    const { candidates, sessionKey, now } = input;
    if (candidates.length === 1) return candidates[0]!;
    const weights = ttftWeights(candidates, now);
    if (sessionKey === undefined) {
      // No session: the fastest replica per request in flight.
      return best(candidates, (r, i) => weights[i]! / (1 + r.inFlight));
    }
    return placeSession(input, sessionKey, weights);
  },
};

function placeSession(
  { candidates, residents }: PickInput,
  sessionKey: number,
  weights: number[],
): Replica {
  const order = candidates
    .map((r, i) => ({ r, score: rendezvousScore(sessionKey, nodeHash(r), weights[i]!) }))
    .sort((a, b) => b.score - a.score);
  let least = order[0]!.r;
  let leastFill = Infinity;
  for (const { r } of order) {
    const fill = residents(r.id) / r.slots;
    if (fill < 1) return r;
    if (fill < leastFill) [least, leastFill] = [r, fill];
  }
  return least;
}

function ttftWeights(candidates: readonly Replica[], now: number): number[] {
  let fastest = Infinity;
  for (const r of candidates) {
    const t = r.ttft.value(now);
    if (t !== undefined) fastest = Math.min(fastest, Math.max(t, floorMs));
  }
  return candidates.map((r) => {
    const t = r.ttft.value(now);
    return t === undefined ? 1 : 2 ** -Math.floor(Math.log2(Math.max(t, floorMs) / fastest));
  });
}

function best(candidates: readonly Replica[], score: (r: Replica, i: number) => number): Replica {
  let top = candidates[0]!;
  let topScore = -1;
  candidates.forEach((r, i) => {
    const s = score(r, i);
    if (s > topScore) [top, topScore] = [r, s];
  });
  return top;
}

const nodeHashes = new WeakMap<Replica, number>();
function nodeHash(r: Replica): number {
  let h = nodeHashes.get(r);
  if (h === undefined) nodeHashes.set(r, h = fnv1a(r.id));
  return h;
}
