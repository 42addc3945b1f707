/**
 * The live table of replicas: where each model can be answered and how busy each replica is, by
 * the router's own count (in flight) and by the engine's own report (its load, refreshed by the
 * load poller). An engine report that could not be read is unknown, never zero.
 */
import type { LoadSnapshot } from "../../core/protocol/load_snapshot.ts";
import { Breaker } from "./breaker.ts";
import { TtftAverage } from "./ttft.ts";

/** `draining`: set by the reconciler; no new requests, in-flight ones finish. */
export type ReplicaState =
  | "starting"
  | "ready"
  | "unhealthy"
  | "restarting"
  | "failed"
  | "stopped"
  | "draining";

export interface Replica {
  readonly id: string;
  readonly model: string;
  /** The engine's base URL (no `/v1`), or for an outside provider its OpenAI base URL. */
  readonly baseUrl: string;
  /** Where OpenAI paths go: `baseUrl + "/v1"` for engines, `baseUrl` for outside providers. */
  readonly apiBase: string;
  /** The per-replica key the engine was started with (or a provider key); never logged. */
  readonly apiKey: string;
  state: ReplicaState;
  /** Requests the router has sent and not yet seen end. */
  inFlight: number;
  /** When the router last sent it a request (the reconciler's idle clock); absent: never. */
  lastRequestAt?: number;
  /** Requests it serves well at once; beyond, requests queue in the router. */
  slots: number;
  /**
   * This control plane's part of `slots` while other control planes route to the replica too
   * (server/cluster/slot_shares.ts); absent: all of them.
   */
  share?: number;
  /** An outside provider: queues for itself, so it is not held to `slots`. */
  readonly external: boolean;
  /** Share of requests among outside endpoints of one model. */
  readonly weight: number;
  /** The engine's last report; `known: false` until one is read. */
  load: LoadSnapshot;
  readonly breaker: Breaker;
  readonly ttft: TtftAverage;
}

export interface ReplicaInput {
  id: string;
  model: string;
  baseUrl: string;
  apiKey: string;
  state: ReplicaState;
  inFlight?: number;
  slots?: number;
  external?: boolean;
  weight?: number;
}

export interface ReplicaTableOptions {
  breakerFailures: number;
  breakerCooldownMs: number;
  defaultSlots: number;
  now: () => number;
}

const defaults: ReplicaTableOptions = {
  breakerFailures: 5,
  breakerCooldownMs: 30_000,
  defaultSlots: 4,
  now: () => Date.now(),
};

/** What the admin API shows of a replica: never its key. */
export interface ReplicaView {
  id: string;
  model: string;
  baseUrl: string;
  state: ReplicaState;
  inFlight: number;
  slots: number | null;
  external: boolean;
  load: LoadSnapshot;
  breaker: string;
  ttftMs: number | null;
}

/** The router's id of a node's replica: the node's id and the replica's id on that node. */
export function routeId(nodeId: string, replicaId: string): string {
  return `${nodeId}/${replicaId}`;
}

/** The node of a `routeId`. */
export function nodeOfRoute(id: string): string {
  const slash = id.indexOf("/");
  return slash < 0 ? id : id.slice(0, slash);
}

export class ReplicaTable {
  readonly #byId = new Map<string, Replica>();
  /** Per model, so the request path never filters the whole table. */
  readonly #byModel = new Map<string, Replica[]>();
  readonly #opts: ReplicaTableOptions;
  /** Replicas the reconciler drains: a report of "ready" from their node does not undo it. */
  readonly #draining = new Set<string>();
  /** Called when a replica may have room for a queued request (one was added or became ready). */
  onRoom: (model: string) => void = () => {};

  constructor(opts: Partial<ReplicaTableOptions> = {}) {
    this.#opts = { ...defaults, ...opts };
  }

  upsert(input: ReplicaInput): Replica {
    const r = this.#draining.has(input.id) && input.state === "ready"
      ? { ...input, state: "draining" as const }
      : input;
    const existing = this.#byId.get(r.id);
    if (existing && existing.baseUrl === r.baseUrl && existing.model === r.model) {
      existing.state = r.state;
      if (r.slots !== undefined) existing.slots = r.slots;
      if (r.state === "ready") this.onRoom(r.model);
      return existing;
    }
    if (existing) this.remove(r.id);
    const external = r.external ?? false;
    const next: Replica = {
      id: r.id,
      model: r.model,
      baseUrl: r.baseUrl,
      apiBase: external ? r.baseUrl.replace(/\/+$/, "") : `${r.baseUrl}/v1`,
      apiKey: r.apiKey,
      state: r.state,
      inFlight: existing?.inFlight ?? r.inFlight ?? 0,
      slots: r.slots ?? (external ? Infinity : this.#opts.defaultSlots),
      external,
      weight: r.weight && r.weight > 0 ? r.weight : 1,
      load: { known: false, readAt: 0 },
      breaker: new Breaker(
        this.#opts.breakerFailures,
        this.#opts.breakerCooldownMs,
        this.#opts.now,
      ),
      ttft: new TtftAverage(),
    };
    this.#byId.set(r.id, next);
    const list = this.#byModel.get(r.model);
    if (list) list.push(next);
    else this.#byModel.set(r.model, [next]);
    if (r.state === "ready") this.onRoom(r.model);
    return next;
  }

  /** No new requests go to it; those in flight finish. Kept until the replica is removed. */
  drain(id: string): void {
    this.#draining.add(id);
    const r = this.#byId.get(id);
    if (r && r.state === "ready") r.state = "draining";
  }

  remove(id: string): void {
    this.#draining.delete(id);
    const r = this.#byId.get(id);
    if (!r) return;
    this.#byId.delete(id);
    const list = (this.#byModel.get(r.model) ?? []).filter((x) => x !== r);
    if (list.length) this.#byModel.set(r.model, list);
    else this.#byModel.delete(r.model);
  }

  get(id: string): Replica | undefined {
    return this.#byId.get(id);
  }

  /** The model's replicas, whatever their state. The array is the table's own: do not change it. */
  forModel(model: string): readonly Replica[] {
    return this.#byModel.get(model) ?? [];
  }

  list(): Replica[] {
    return [...this.#byId.values()];
  }

  /**
   * Records an engine's report. Two sources feed it (the local poller, remote heartbeats): a read
   * older than the one held is dropped, so a slower path never undoes a fresher one.
   */
  setLoad(id: string, load: LoadSnapshot): void {
    const r = this.#byId.get(id);
    if (r && load.readAt >= r.load.readAt) r.load = load;
  }

  /** The ready replica with the fewest requests in flight (a plain least-loaded choice). */
  pick(model: string): Replica | undefined {
    let best: Replica | undefined;
    for (const r of this.forModel(model)) {
      if (r.state !== "ready") continue;
      if (!best || r.inFlight < best.inFlight) best = r;
    }
    return best;
  }

  anyReady(): boolean {
    for (const r of this.#byId.values()) if (r.state === "ready") return true;
    return false;
  }

  view(r: Replica): ReplicaView {
    return {
      id: r.id,
      model: r.model,
      baseUrl: r.baseUrl,
      state: r.state,
      inFlight: r.inFlight,
      slots: Number.isFinite(r.slots) ? r.slots : null,
      external: r.external,
      load: r.load,
      breaker: r.breaker.state(),
      ttftMs: r.ttft.value(this.#opts.now()) ?? null,
    };
  }
}
