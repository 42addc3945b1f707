/**
 * Chooses the replica for one attempt among a model's replicas that can take a request now:
 * ready, breaker not open, not already tried for this request, and with room (fewer in flight
 * than its slots; outside providers queue for themselves and always have room). A live session
 * stays on the replica it sits on (its conversation is in that engine's prompt cache) unless that
 * replica is overloaded. Else the replica that last saw the request's long prompt prefix (this
 * tenant's, never another's) wins unless it is overloaded or, for a new session, already holds as
 * many live sessions as it has slots; otherwise the profile decides, or weights for outside
 * endpoints. The session is then recorded where it went.
 */
import { pickWeighted } from "./external.ts";
import { pickers, type Profile } from "./picker.ts";
import type { Replica, ReplicaTable } from "./replicas.ts";
import type { SessionTable } from "./session_table.ts";

export interface ChooseInput {
  table: ReplicaTable;
  model: string;
  profile: Profile;
  sessionKey: number | undefined;
  sessions: SessionTable;
  /**
   * Live sessions per replica as every control plane counts them (the shared table), for a new
   * session; absent: this router's own table.
   */
  residents?: ReadonlyMap<string, number> | undefined;
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
  const r = pick(i, candidates);
  if (i.sessionKey !== undefined && !r.external) i.sessions.place(i.sessionKey, r.id, i.now);
  return r;
}

function pick(i: ChooseInput, candidates: Replica[]): Replica {
  const { sessionKey, sessions, now } = i;
  const residents = (id: string) => i.residents?.get(id) ?? sessions.residents(id, now);
  if (sessionKey !== undefined) {
    const home = sessions.where(sessionKey, now);
    const sits = home === undefined ? undefined : candidates.find((r) => r.id === home);
    if (sits && !overloaded(sits)) return sits;
  }
  if (i.prefixReplicaId !== undefined) {
    const seen = candidates.find((r) => r.id === i.prefixReplicaId);
    const full = seen !== undefined && sessionKey !== undefined &&
      residents(seen.id) >= seen.slots;
    if (seen && !overloaded(seen) && !full) return seen;
  }
  if (candidates[0]!.external) return pickWeighted(candidates);
  return pickers[i.profile].pick({ candidates, sessionKey, residents, now });
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
