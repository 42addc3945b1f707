/**
 * Chooses the replica for one attempt among a model's replicas that can take a request now:
 * ready, breaker not open, not already tried for this request, and with room (fewer in flight
 * than its slots; outside providers queue for themselves and always have room). The replica that
 * last saw the request's long prompt prefix wins unless it is overloaded; otherwise the profile
 * decides, or weights for outside endpoints.
 */
import { pickWeighted } from "./external.ts";
import { pickers, type Profile } from "./picker.ts";
import type { Replica, ReplicaTable } from "./replicas.ts";

export interface ChooseInput {
  table: ReplicaTable;
  model: string;
  profile: Profile;
  sessionKey: number | undefined;
  /** The replica that last saw this request's prompt prefix, if any. */
  prefixReplicaId: string | undefined;
  tried: ReadonlySet<Replica>;
  now: number;
}

export function choose(i: ChooseInput): Replica | undefined {
  const candidates: Replica[] = [];
  for (const r of i.table.forModel(i.model)) {
    if (canTake(r) && !i.tried.has(r)) candidates.push(r);
  }
  if (candidates.length === 0) return undefined;
  if (i.prefixReplicaId !== undefined) {
    const seen = candidates.find((r) => r.id === i.prefixReplicaId);
    if (seen && !overloaded(seen)) return seen;
  }
  if (candidates[0]!.external) return pickWeighted(candidates);
  return pickers[i.profile].pick({ candidates, sessionKey: i.sessionKey, now: i.now });
}

/** Whether the model has a replica that could answer, busy or not (so waiting for it makes sense). */
export function hasUsable(
  table: ReplicaTable,
  model: string,
  tried: ReadonlySet<Replica>,
): boolean {
  for (const r of table.forModel(model)) {
    if (r.state === "ready" && r.breaker.available() && !tried.has(r)) return true;
  }
  return false;
}

function canTake(r: Replica): boolean {
  return r.state === "ready" && r.inFlight < (r.share ?? r.slots) && r.breaker.available();
}

/** The engine reports a queue of its own or a nearly full KV cache: no place for a bonus. */
function overloaded(r: Replica): boolean {
  const l = r.load;
  return l.known && ((l.waiting ?? 0) > 0 || (l.kvCacheUsage ?? 0) >= 0.95);
}
