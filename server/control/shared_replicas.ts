/**
 * Every control plane routes to every replica, though only the leader holds the nodes' channels:
 * the leader writes the replicas its nodes report into `routable_replicas` every `everyMs`, and
 * each control plane mirrors the rows into its own replica table (those its own nodes report
 * stay the hub's). What a control plane sent a replica goes the other way, in `replica_use`, so
 * the leader's idle clock (eviction) counts requests routed by standbys.
 *
 * Rows the leader stops reporting go at once; rows a previous leader wrote age out after
 * `keepMs` (the nodes' `lost_after_ms`), the time they get to reconnect to the new one.
 */
import { gt, inArray, lt, ne } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { modelDemand, replicaUse, routableReplicas } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { nodeOfRoute, type ReplicaState, type ReplicaTable, routeId } from "../router/replicas.ts";
import type { NodeHub } from "../nodes/node_hub.ts";
import type { LeaderGate } from "./leadership.ts";
import { alone, type Peers } from "./peers.ts";

export interface SharedReplicasDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  leadership: LeaderGate;
  replicas: ReplicaTable;
  /** The ids of the replicas this control plane's own nodes report now. */
  ownIds: () => Set<string>;
  /** The nodes connected to this control plane: the hub knows their replicas first-hand. */
  ownNodes: () => Set<string>;
  /** A replica's engine key (derived, never stored). */
  apiKeyOf: (id: string) => string;
  everyMs: number;
  keepMs: () => number;
  /** The leader's reconciler counting a waiting request for `model`; the result ends it. */
  want: (model: string) => () => void;
  /** How long a standby's demand counts (the request's own wait for a replica). */
  demandMs: () => number;
  /** Alone, there is nobody to publish to or mirror from. */
  peers?: Peers;
}

export class SharedReplicas {
  readonly #log: Logger;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** What this control plane wrote last time it published. */
  #published = new Set<string>();
  /** Replicas in the local table that came from the store, not from a node of ours. */
  #mirrored = new Set<string>();
  /** When this control plane last wrote each replica's use. */
  #useWritten = new Map<string, number>();
  #busy = false;
  /** Models this (standby) control plane asked the leader for, and when it last wrote so. */
  #asked = new Map<string, number>();
  /** The leader: standbys' demand it counts, each until its time is up. */
  #held = new Map<string, { done: () => void; timer: ReturnType<typeof setTimeout> }>();
  #demandReadAt = 0;

  constructor(private readonly deps: SharedReplicasDeps) {
    this.#log = deps.logger.child({ component: "shared-replicas" });
    deps.peers?.onJoined(() => void this.step());
  }

  start(): void {
    this.#timer = setInterval(() => void this.step(), this.deps.everyMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    for (const h of this.#held.values()) {
      clearTimeout(h.timer);
      h.done();
    }
    this.#held.clear();
  }

  /**
   * A request on this standby waits for `model`: the leader is asked (through the store) to
   * start it. Written at most once a second per model.
   */
  wantOnLeader(model: string): void {
    const now = this.deps.clock.now();
    if (now - (this.#asked.get(model) ?? 0) < 1_000) return;
    this.#asked.set(model, now);
    const row = { model, controlId: this.deps.leadership.id, wantedAt: now };
    this.deps.store.write((tx) =>
      tx.insert(modelDemand).values(row).onConflictDoUpdate({
        target: [modelDemand.model, modelDemand.controlId],
        set: { wantedAt: now },
      })
    ).then(() => this.step()).catch((e) =>
      this.#log.warn("could not ask the leader for a model", { model, error: e as Error })
    );
  }

  /** One round: publish (leader) or mirror (everyone), and exchange replicas' last use. */
  async step(): Promise<void> {
    if (this.#busy) return;
    // Alone, the only work left is the rows mirrored while there were others: kept until they
    // age out or their nodes say hello here, as before.
    if (alone(this.deps.peers) && this.#mirrored.size === 0) return;
    this.#busy = true;
    try {
      if (alone(this.deps.peers)) {
        await this.#mirror();
        return;
      }
      if (this.deps.leadership.isLeader) {
        await this.#publish();
        await this.#readUse();
        await this.#readDemand();
      } else {
        this.#published.clear();
      }
      await this.#mirror();
      await this.#writeUse();
    } catch (e) {
      this.#log.warn("could not share replicas through the store; will retry", {
        error: e as Error,
      });
    } finally {
      this.#busy = false;
    }
  }

  async #publish(): Promise<void> {
    const now = this.deps.clock.now();
    const own = this.deps.ownIds();
    const rows = this.deps.replicas.list()
      .filter((r) => own.has(r.id) && !r.external)
      .map((r) => ({
        id: r.id,
        model: r.model,
        baseUrl: r.baseUrl,
        state: r.state,
        slots: r.slots,
        publishedAt: now,
      }));
    const gone = [...this.#published].filter((id) => !own.has(id));
    await this.deps.store.write(async (tx) => {
      for (const row of rows) {
        await tx.insert(routableReplicas).values(row)
          .onConflictDoUpdate({ target: routableReplicas.id, set: row });
      }
      if (gone.length) await tx.delete(routableReplicas).where(inArray(routableReplicas.id, gone));
      await tx.delete(routableReplicas)
        .where(lt(routableReplicas.publishedAt, now - this.deps.keepMs()));
    });
    this.#published = new Set(rows.map((r) => r.id));
  }

  /**
   * A node has just said hello to this control plane: from now on its hub reports that node's
   * replicas, so rows about it (written by an earlier leader, this one's own earlier run
   * included) go at once. Kept, they could route to an engine the node is about to replace
   * (its settings changed meanwhile) and answer 502 while the new one starts.
   */
  forgetNode(nodeId: string): void {
    for (const id of [...this.#mirrored]) {
      if (nodeOfRoute(id) !== nodeId) continue;
      this.#mirrored.delete(id);
      if (!this.deps.ownIds().has(id)) this.deps.replicas.remove(id);
    }
  }

  /** The store's replicas into the local table, except those of this control plane's nodes. */
  async #mirror(): Promise<void> {
    const since = this.deps.clock.now() - this.deps.keepMs();
    const rows = (await this.deps.store.db.select().from(routableReplicas))
      .filter((r) => r.publishedAt >= since);
    const own = this.deps.ownIds();
    const ownNodes = this.deps.ownNodes();
    const seen = new Set<string>();
    for (const r of rows) {
      if (own.has(r.id) || ownNodes.has(nodeOfRoute(r.id))) continue;
      seen.add(r.id);
      this.deps.replicas.upsert({
        id: r.id,
        model: r.model,
        baseUrl: r.baseUrl,
        apiKey: this.deps.apiKeyOf(r.id),
        state: r.state as ReplicaState,
        ...(r.slots !== null ? { slots: r.slots } : {}),
      });
    }
    for (const id of this.#mirrored) {
      if (!seen.has(id) && !own.has(id)) this.deps.replicas.remove(id);
    }
    this.#mirrored = seen;
  }

  /** This control plane's last use of each replica it routed to since it last said. */
  async #writeUse(): Promise<void> {
    const controlId = this.deps.leadership.id;
    const changed = this.deps.replicas.list().filter((r) =>
      !r.external && r.lastRequestAt !== undefined &&
      r.lastRequestAt > (this.#useWritten.get(r.id) ?? 0)
    );
    if (!changed.length) return;
    await this.deps.store.write(async (tx) => {
      for (const r of changed) {
        const row = { replicaId: r.id, controlId, lastUsedAt: r.lastRequestAt! };
        await tx.insert(replicaUse).values(row).onConflictDoUpdate({
          target: [replicaUse.replicaId, replicaUse.controlId],
          set: { lastUsedAt: row.lastUsedAt },
        });
      }
    });
    for (const r of changed) this.#useWritten.set(r.id, r.lastRequestAt!);
  }

  /** Standbys' waiting requests count as the leader's own until their wait is over. */
  async #readDemand(): Promise<void> {
    const since = this.#demandReadAt;
    const now = this.deps.clock.now();
    const rows = await this.deps.store.db.select().from(modelDemand)
      .where(gt(modelDemand.wantedAt, since));
    this.#demandReadAt = Math.max(since, ...rows.map((r) => r.wantedAt));
    const holdMs = this.deps.demandMs();
    for (const r of rows) {
      if (r.wantedAt + holdMs <= now) continue;
      const held = this.#held.get(r.model);
      if (held) clearTimeout(held.timer);
      const done = held?.done ?? this.deps.want(r.model);
      const timer = setTimeout(() => {
        this.#held.delete(r.model);
        done();
      }, r.wantedAt + holdMs - now);
      this.#held.set(r.model, { done, timer });
    }
  }

  /** The leader's idle clock takes the latest use any control plane saw. */
  async #readUse(): Promise<void> {
    const rows = await this.deps.store.db.select().from(replicaUse)
      .where(ne(replicaUse.controlId, this.deps.leadership.id));
    for (const u of rows) {
      const r = this.deps.replicas.get(u.replicaId);
      if (r && (r.lastRequestAt ?? 0) < u.lastUsedAt) r.lastRequestAt = u.lastUsedAt;
    }
    // Rows of replicas long gone: a day without use says nothing the idle clock needs.
    const since = this.deps.clock.now() - 24 * 3_600_000;
    if (rows.some((u) => u.lastUsedAt < since)) {
      await this.deps.store.write((tx) =>
        tx.delete(replicaUse).where(lt(replicaUse.lastUsedAt, since))
      );
    }
  }
}

/** How often replicas and their use go through the store between control planes. */
const everyMs = 1_000;

/** What sharing reads of this control plane's own cluster listener. */
export interface OwnCluster {
  services: { hub: Pick<NodeHub, "connected" | "onHello"> };
  /** The engine key of replica `nodeId/replicaId`. */
  replicaKeyOf(id: string): string;
}

/** Started for a control plane with a cluster listener: its hub's replicas are its own. */
export function shareReplicas(
  deps:
    & Pick<
      SharedReplicasDeps,
      | "store"
      | "clock"
      | "logger"
      | "leadership"
      | "replicas"
      | "keepMs"
      | "want"
      | "demandMs"
      | "peers"
    >
    & { listener: OwnCluster },
): SharedReplicas {
  const { listener, ...rest } = deps;
  const shared = new SharedReplicas({
    ...rest,
    ownIds: () =>
      new Set(
        listener.services.hub.connected().flatMap((n) =>
          n.replicas.map((s) => routeId(n.nodeId, s.replicaId))
        ),
      ),
    ownNodes: () => new Set(listener.services.hub.connected().map((n) => n.nodeId)),
    apiKeyOf: (id) => listener.replicaKeyOf(id),
    everyMs,
  });
  listener.services.hub.onHello = (nodeId) => shared.forgetNode(nodeId);
  shared.start();
  return shared;
}
