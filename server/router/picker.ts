/**
 * Routing profiles: each scores the replicas that can take a request now and picks one. Chosen
 * per model in the catalog (`routing_profile`) or per request with `x-llmgw-profile`.
 */
import { AppError } from "../../core/errors.ts";
import type { Replica } from "./replicas.ts";
import { batchPicker } from "./profile_batch.ts";
import { chatPicker } from "./profile_chat.ts";
import { longContextPicker } from "./profile_long_context.ts";
import { roundRobinPicker } from "./profile_round_robin.ts";

export interface PickInput {
  /** Replicas that may take the request now (ready, breaker not open, room). Never empty. */
  readonly candidates: readonly Replica[];
  /** The request's session, for affinity; undefined when it has none. */
  readonly sessionKey: number | undefined;
  /** Live sessions a replica holds, for placing a new one where its replica has a free slot. */
  readonly residents: (replicaId: string) => number;
  readonly now: number;
}

export interface Picker {
  pick(input: PickInput): Replica;
}

export const profiles = ["chat", "batch", "long-context", "round-robin"] as const;
export type Profile = (typeof profiles)[number];

export const pickers: Readonly<Record<Profile, Picker>> = {
  chat: chatPicker,
  batch: batchPicker,
  "long-context": longContextPicker,
  "round-robin": roundRobinPicker,
};

export const profileHeader = "x-llmgw-profile";

/** The profile a request asked for, else its model's, else `chat`. */
export function resolveProfile(header: string | undefined, modelProfile: string | null): Profile {
  if (header !== undefined) {
    if (isProfile(header)) return header;
    throw new AppError(
      "invalid_request",
      { detail: `header ${profileHeader} must be one of ${profiles.join(", ")}` },
      profileHeader,
    );
  }
  return modelProfile && isProfile(modelProfile) ? modelProfile : "chat";
}

function isProfile(s: string): s is Profile {
  return (profiles as readonly string[]).includes(s);
}

/**
 * The replica's queue as best known: the router's own count, or the engine's report when that is
 * more (other clients, or requests the router lost track of). An unreported queue is not taken as
 * empty: it counts half a request more than the same count known.
 */
export function queueDepth(r: Replica): number {
  const l = r.load;
  if (!l.known || (l.running === undefined && l.waiting === undefined)) return r.inFlight + 0.5;
  return Math.max(r.inFlight, (l.running ?? 0) + (l.waiting ?? 0));
}
