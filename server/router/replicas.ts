/**
 * The live table of replicas: where each model can be answered, and how busy each replica is
 * by the router's own count. The picker takes the ready replica with the fewest requests in flight.
 */
export type ReplicaState = "starting" | "ready" | "restarting" | "failed" | "stopped";

export interface Replica {
  readonly id: string;
  readonly model: string;
  readonly baseUrl: string;
  /** The per-replica key the engine was started with; sent by the router, never logged. */
  readonly apiKey: string;
  state: ReplicaState;
  inFlight: number;
}

export class ReplicaTable {
  readonly #byId = new Map<string, Replica>();

  upsert(r: Omit<Replica, "inFlight"> & { inFlight?: number }): Replica {
    const existing = this.#byId.get(r.id);
    const next: Replica = { ...r, inFlight: existing?.inFlight ?? r.inFlight ?? 0 };
    if (existing && existing.baseUrl === next.baseUrl) {
      existing.state = next.state;
      return existing;
    }
    this.#byId.set(r.id, next);
    return next;
  }

  remove(id: string): void {
    this.#byId.delete(id);
  }

  forModel(model: string): Replica[] {
    return [...this.#byId.values()].filter((r) => r.model === model);
  }

  list(): Replica[] {
    return [...this.#byId.values()];
  }

  pick(model: string): Replica | undefined {
    let best: Replica | undefined;
    for (const r of this.#byId.values()) {
      if (r.model !== model || r.state !== "ready") continue;
      if (!best || r.inFlight < best.inFlight) best = r;
    }
    return best;
  }

  anyReady(): boolean {
    for (const r of this.#byId.values()) if (r.state === "ready") return true;
    return false;
  }
}
