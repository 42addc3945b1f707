/**
 * The control plane's side of every node's channel: who is connected, what each node last
 * reported, and the router's replicas for the replicas nodes run. A node's channel closes when its
 * agent goes or has sent nothing for `lostAfterMs`. An agent restart (an upgrade, a crash) leaves
 * its engines running for the next agent to adopt, so a node that is gone keeps its ready
 * replicas in the router for up to `replaceAfterMs` while their engines answer their health
 * check (probed from here), and counts as lost (a notification; the reconciler replaces its
 * replicas) only once that grace is over or a kept engine stops answering. A node that left on
 * purpose (removed, its agent stopped with its engines) loses its replicas at once.
 * What must survive a restart (the node, its desired replicas) is in the store (NodeStore).
 */
import { ulid } from "ulid";
import { notLeaderReason } from "../../core/protocol/close_codes.ts";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { Liveness } from "../../core/protocol/liveness.ts";
import {
  agentFeatures,
  type AgentMessage,
  agentMessageSchema,
  decodeMessage,
  type Heartbeat,
  protocolVersion,
  type ReplicaLaunch,
  type ReplicaReport,
  type ReplicaSpec,
  type ServerMessage,
  type WeightsProgress,
} from "../../core/protocol/messages.ts";
import { VERSION } from "../../core/version.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import { type ReplicaTable, routeId } from "../router/replicas.ts";
import { AppError } from "../../core/errors.ts";
import type { DesiredReplica, NodeRow, NodeStore } from "./node_store.ts";
import { replicaKey } from "./replica_key.ts";
import { type EngineLogAnswer, EngineLogWaits } from "./engine_log_waits.ts";

/** What the hub tells the rest of the control plane (notifications). */
export interface NodeEvents {
  connected(node: string): void;
  lost(node: string, reason: string): void;
  heartbeat(node: string, hb: Heartbeat): void;
  replica(node: string, replica: ReplicaReport): void;
}

/** A `fetch_weights` command waiting for its node's answer. */
interface WeightsWait {
  nodeId: string;
  onProgress?: (p: WeightsProgress) => void;
  resolve: (r: { path?: string }) => void;
  reject: (e: Error) => void;
}

export interface NodeHubSettings {
  heartbeatMs: number;
  lostAfterMs: number;
  /** The grace a gone node's engines get (see the module comment); 0: none. */
  replaceAfterMs: number;
  idleMs: number;
  answerMs: number;
}

interface Live {
  nodeId: string;
  name: string;
  socket: WebSocket;
  /** The protocol the agent said it speaks in its hello (1 until it did: the older names). */
  protocol: number;
  /** What its hello said it answers beyond the protocol (agentFeatures); empty until then. */
  features: Set<string>;
  version: string | null;
  liveness: Liveness;
  connectedAt: number;
  lastHeard: number;
  heartbeat?: Heartbeat;
  replicas: Map<string, ReplicaReport>;
  /** Why each replica's last start failed, from command results. */
  errors: Map<string, string>;
  /** Replicas this connection was already told to stop (reported but not desired). */
  stopSent: Set<string>;
  ready: boolean;
}

/** A node that is gone, within its grace: what it ran, kept in routing while it answers. */
interface Held {
  name: string;
  replicas: Map<string, ReplicaReport>;
  until: number;
  reason: string;
  probedAt: number;
  probing: boolean;
  /** `lost` was sent for it already (a kept engine stopped answering). */
  told: boolean;
}

/** How often kept engines are probed, and how long each probe may take. */
const heldProbeMs = 2_000;

export interface LiveNode {
  nodeId: string;
  connectedAt: number;
  lastHeard: number;
  heartbeat?: Heartbeat;
  replicas: ReplicaReport[];
  /** Why a start failed, per replica id (also for replicas the node no longer reports). */
  errors: Map<string, string>;
}

export type NodeState = "ready" | "cordoned" | "draining" | "lost" | "waiting";

export interface ReplicaView extends ReplicaReport {
  /** Desired but not (yet) reported by the node. */
  pending?: boolean;
}

export interface NodeView {
  id: string;
  name: string;
  state: NodeState;
  connected: boolean;
  cordoned: boolean;
  draining: boolean;
  labels: Record<string, string>;
  version: string | null;
  createdAt: number;
  lastHeardAt: number | null;
  host?: unknown;
  gpu?: unknown;
  engines?: unknown;
  replicas: ReplicaView[];
  warnings: string[];
}

export class NodeHub {
  readonly #live = new Map<string, Live>();
  readonly #weightsWaits = new Map<string, WeightsWait>();
  readonly #logWaits: EngineLogWaits;
  readonly #held = new Map<string, Held>();
  /** Nodes gone and lost since (their grace over, or their kept engines silent), until back. */
  readonly #gone = new Set<string>();
  readonly #log: Logger;
  readonly #timer: ReturnType<typeof setInterval>;
  /** The last time each node's report was written to the store; the store need not see every beat. */
  readonly #persistedAt = new Map<string, number>();
  /** Called after a report, a replica's state change, a node's hello or loss (the reconciler's kick). */
  onReport: () => void = () => {};
  /** A node said hello: what this hub knows of it now outranks what others wrote about it. */
  onHello: (nodeId: string) => void = () => {};

  constructor(
    private readonly deps: {
      nodes: NodeStore;
      clock: Clock;
      logger: Logger;
      replicas: ReplicaTable;
      catalog: ModelCatalog;
      clusterSecret: string;
      settings: NodeHubSettings;
      events?: NodeEvents;
      /** The node's certificate for a set's tunnel (server/tls/node_certificate.ts). */
      nodeCertificate?: (node: string) => Promise<{ certPem: string; keyPem: string }>;
      /** The leader lease's epoch, stamped on the welcome and every command (absent: no lease). */
      epoch?: () => number;
    },
  ) {
    this.#log = deps.logger.child({ component: "nodes" });
    this.#logWaits = new EngineLogWaits(Math.max(deps.settings.answerMs, 3_000));
    this.#timer = setInterval(() => this.#sweep(), Math.min(500, deps.settings.lostAfterMs / 4));
  }

  /** Takes over an upgraded socket for a node whose credential was checked. */
  accept(node: NodeRow, socket: WebSocket): void {
    const previous = this.#live.get(node.id);
    if (previous) this.#drop(previous, 4000, replacedReason);
    // What the node ran is still in the router; its next heartbeat keeps or forgets each.
    const held = this.#held.get(node.id);
    this.#held.delete(node.id);
    this.#gone.delete(node.id);
    const carried = new Map([...(held?.replicas ?? []), ...(previous?.replicas ?? [])]);
    const now = this.deps.clock.now();
    const live: Live = {
      nodeId: node.id,
      name: node.name,
      socket,
      protocol: 1,
      features: new Set(),
      version: null,
      connectedAt: now,
      lastHeard: now,
      replicas: carried,
      errors: new Map(),
      stopSent: new Set(),
      ready: false,
      liveness: new Liveness({
        idleMs: this.deps.settings.idleMs,
        answerMs: this.deps.settings.answerMs,
        sendPing: (id) => this.#send(live, { type: "ping", id }),
        onDead: () => this.#drop(live, 4000, "no answer to ping"),
      }),
    };
    this.#live.set(node.id, live);
    socket.onmessage = (e) => {
      this.#onMessage(live, e.data).catch((err) =>
        this.#log.error("node message failed", { nodeId: live.nodeId, error: err })
      );
    };
    // An agent that stops on purpose says so in its close frame (agent/channel/control_channel.ts):
    // that node left, it was not lost, and nobody is paged for it. One restarting left its
    // engines running: they get the grace.
    socket.onclose = (e) =>
      this.#lost(
        live,
        e.code === 1000 && (e.reason === agentStopping || e.reason === agentRestarting)
          ? e.reason
          : "channel closed",
      );
    socket.onerror = () => {};
    this.#log.info("node connected", { nodeId: node.id, name: node.name });
    this.deps.events?.connected(node.name);
  }

  async #onMessage(live: Live, data: unknown): Promise<void> {
    if (this.#live.get(live.nodeId) !== live) return;
    const decoded = decodeMessage<AgentMessage>(agentMessageSchema, data);
    if (!decoded.ok) {
      this.#log.warn("dropped an invalid message from a node", {
        nodeId: live.nodeId,
        reason: decoded.reason,
      });
      return;
    }
    live.liveness.heard();
    live.lastHeard = this.deps.clock.now();
    const msg = decoded.message;
    switch (msg.type) {
      case "hello": {
        const node = await this.deps.nodes.find(live.nodeId).catch(() => undefined);
        if (!node) return this.#drop(live, 4401, "node removed");
        const labels = { ...node.labels, ...(msg.labels ?? {}) };
        await this.deps.nodes.update(node.id, {
          version: msg.version,
          labels,
          lastHeardAt: live.lastHeard,
        });
        live.protocol = msg.protocol;
        live.features = new Set(msg.features ?? []);
        live.version = msg.version;
        if (msg.protocol !== protocolVersion) {
          this.#log.warn("node speaks another protocol version", {
            nodeId: node.id,
            theirs: msg.protocol,
            ours: protocolVersion,
          });
        }
        // A restarted agent adopts what still runs; anything else is started afresh.
        const desired = await this.deps.nodes.desired(node.id);
        const tunnel = await this.deps.nodeCertificate?.(node.name).catch((e) => {
          this.#log.warn("no cluster certificate for the node", { nodeId: node.id, error: e });
          return undefined;
        });
        // Before the welcome: the node may replace an engine as soon as it reads it.
        this.onHello(node.id);
        this.onReport();
        this.#send(live, {
          type: "welcome",
          nodeId: node.id,
          name: node.name,
          version: VERSION,
          protocol: protocolVersion,
          heartbeatMs: this.deps.settings.heartbeatMs,
          replicas: desired.map((d) => this.#spec(d)),
          ...(tunnel ? { tunnel } : {}),
        });
        live.ready = true;
        return;
      }
      case "heartbeat": {
        live.heartbeat = msg;
        this.deps.events?.heartbeat(live.name, msg);
        const seen = new Set<string>();
        for (const s of msg.replicas) {
          seen.add(s.replicaId);
          this.#onReplica(live, s);
        }
        for (const id of [...live.replicas.keys()]) {
          if (!seen.has(id)) this.#forgetReplica(live, id);
        }
        await this.#stopUndesired(live, msg.replicas);
        await this.#persist(live);
        this.onReport();
        return;
      }
      case "replica_state":
        this.#onReplica(live, msg.replica);
        return this.onReport();
      case "weights_progress":
        this.#weightsWaits.get(msg.id)?.onProgress?.(msg);
        return;
      case "command_result": {
        const wait = this.#weightsWaits.get(msg.id);
        if (wait) {
          this.#weightsWaits.delete(msg.id);
          if (msg.ok) wait.resolve(msg.path ? { path: msg.path } : {});
          else wait.reject(new Error(msg.error ?? "the node could not do it"));
          return;
        }
        if (!msg.ok && msg.error) {
          const replicaId = msg.replica?.replicaId;
          if (replicaId) live.errors.set(replicaId, msg.error);
          this.#log.warn("node command failed", { nodeId: live.nodeId, error: msg.error });
        }
        if (msg.replica) this.#onReplica(live, msg.replica);
        return this.onReport();
      }
      case "engine_log_lines":
        return this.#logWaits.answered(live.nodeId, msg);
      case "ping":
        return this.#send(live, { type: "pong", id: msg.id });
      case "pong":
        return;
    }
  }

  #onReplica(live: Live, s: ReplicaReport): void {
    this.deps.events?.replica(live.name, s);
    if (s.state === "stopped") return this.#forgetReplica(live, s.replicaId);
    live.replicas.set(s.replicaId, s);
    if (s.state === "ready") live.errors.delete(s.replicaId);
    // A set's worker serves its head only, through the tunnel: it is never routed to.
    if (s.role === "worker") return;
    const id = routeId(live.nodeId, s.replicaId);
    this.deps.replicas.upsert({
      id,
      model: s.model,
      baseUrl: s.baseUrl,
      apiKey: replicaKey(this.deps.clusterSecret, live.nodeId, s.replicaId),
      state: s.state,
      ...(s.slots !== undefined ? { slots: s.slots } : {}),
    });
    // The engine's own report rides on the heartbeat: what the router scores remote replicas by.
    // zod leaves absent keys out, so an unread figure stays absent rather than undefined.
    if (s.load) this.deps.replicas.setLoad(id, s.load);
  }

  #forgetReplica(live: Live, replicaId: string): void {
    live.replicas.delete(replicaId);
    this.deps.replicas.remove(routeId(live.nodeId, replicaId));
  }

  async #stopUndesired(live: Live, replicas: ReplicaReport[]): Promise<void> {
    if (!live.ready) return;
    const desired = new Set((await this.deps.nodes.desired(live.nodeId)).map((d) => d.replicaId));
    for (const s of replicas) {
      if (desired.has(s.replicaId) || live.stopSent.has(s.replicaId)) continue;
      live.stopSent.add(s.replicaId);
      this.#log.info("stopping a replica the node runs but should not", {
        nodeId: live.nodeId,
        replicaId: s.replicaId,
      });
      this.#send(live, { type: "stop_replica", id: ulid(), replicaId: s.replicaId });
    }
  }

  async #persist(live: Live): Promise<void> {
    const now = this.deps.clock.now();
    if (now - (this.#persistedAt.get(live.nodeId) ?? 0) < 10_000) return;
    this.#persistedAt.set(live.nodeId, now);
    const hb = live.heartbeat;
    await this.deps.nodes.update(live.nodeId, {
      lastHeardAt: live.lastHeard,
      ...(hb
        ? {
          lastReport: {
            ...(hb.host ? { host: hb.host } : {}),
            ...(hb.gpu ? { gpu: hb.gpu } : {}),
            ...(hb.engines ? { engines: hb.engines } : {}),
          },
        }
        : {}),
    });
  }

  #sendStart(live: Live, d: DesiredReplica): void {
    live.stopSent.delete(d.replicaId);
    this.#send(live, { type: "start_replica", id: ulid(), spec: this.#spec(d) });
  }

  #spec(d: DesiredReplica): ReplicaSpec {
    return {
      replicaId: d.replicaId,
      model: d.model,
      engine: d.engine,
      ...(d.modelPath ? { modelPath: d.modelPath } : {}),
      args: d.args,
      apiKey: replicaKey(this.deps.clusterSecret, d.nodeId, d.replicaId),
      ...(d.launch ? { launch: d.launch as ReplicaLaunch } : {}),
    };
  }

  #send(live: Live, msg: ServerMessage): void {
    if (live.socket.readyState !== WebSocket.OPEN) return;
    const { epoch } = this.deps;
    const fenced = epoch && msg.type !== "ping" && msg.type !== "pong"
      ? { ...msg, epoch: epoch() }
      : msg;
    try {
      live.socket.send(JSON.stringify(fenced));
    } catch (e) {
      this.#log.warn("could not send to a node", { nodeId: live.nodeId, error: e as Error });
    }
  }

  #sweep(): void {
    const now = this.deps.clock.now();
    for (const live of this.#live.values()) {
      if (now - live.lastHeard > this.deps.settings.lostAfterMs) {
        this.#drop(live, 4000, "no heartbeat");
      }
    }
    for (const [nodeId, held] of this.#held) {
      if (now >= held.until) {
        const secs = Math.round(this.deps.settings.replaceAfterMs / 1000);
        this.#release(nodeId, held, `${held.reason}; not back within ${secs} s`);
      } else if (!held.probing && now - held.probedAt >= heldProbeMs) {
        held.probing = true;
        held.probedAt = now;
        this.#probeHeld(nodeId, held).finally(() => (held.probing = false));
      }
    }
  }

  /** A kept engine that no longer answers leaves the router, and the node counts as lost. */
  async #probeHeld(nodeId: string, held: Held): Promise<void> {
    await Promise.all([...held.replicas.values()].map(async (s) => {
      const ok = await engineAnswers(
        s.baseUrl,
        replicaKey(this.deps.clusterSecret, nodeId, s.replicaId),
      );
      if (ok || this.#held.get(nodeId) !== held) return;
      held.replicas.delete(s.replicaId);
      this.deps.replicas.remove(routeId(nodeId, s.replicaId));
      this.onReport();
      if (!held.told) {
        held.told = true;
        this.#gone.add(nodeId);
        this.#log.warn("node lost", {
          nodeId,
          reason: `${held.reason}; its engines do not answer`,
        });
        this.deps.events?.lost(held.name, `${held.reason}; its engines do not answer`);
      }
    }));
  }

  /** The grace is over: the node's replicas leave the router and it is lost. */
  #release(nodeId: string, held: Held, reason: string): void {
    this.#held.delete(nodeId);
    this.#gone.add(nodeId);
    for (const id of held.replicas.keys()) this.deps.replicas.remove(routeId(nodeId, id));
    this.onReport();
    if (held.told) return;
    this.#log.warn("node lost", { nodeId, reason });
    this.deps.events?.lost(held.name, reason);
  }

  #drop(live: Live, code: number, reason: string): void {
    try {
      live.socket.close(code, reason);
    } catch {
      // Already closed.
    }
    this.#lost(live, reason);
  }

  #lost(live: Live, reason: string): void {
    live.liveness.stop();
    if (this.#live.get(live.nodeId) !== live) return;
    for (const [id, w] of this.#weightsWaits) {
      if (w.nodeId !== live.nodeId) continue;
      this.#weightsWaits.delete(id);
      w.reject(new Error(`the node went away while fetching weights (${reason})`));
    }
    this.#live.delete(live.nodeId);
    this.#logWaits.gone(live.nodeId);
    this.deps.nodes.update(live.nodeId, { lastHeardAt: live.lastHeard }).catch(() => {});
    // The new connection carries the replicas on (accept).
    if (reason === replacedReason) return this.onReport();
    const graceMs = this.deps.settings.replaceAfterMs;
    if (!notLoss.has(reason) && graceMs > 0) {
      const kept = new Map<string, ReplicaReport>();
      for (const [id, s] of live.replicas) {
        if (s.state === "ready") kept.set(id, s);
        else this.deps.replicas.remove(routeId(live.nodeId, id));
      }
      const now = this.deps.clock.now();
      this.#held.set(live.nodeId, {
        name: live.name,
        replicas: kept,
        until: now + graceMs,
        reason,
        probedAt: 0,
        probing: false,
        told: false,
      });
      this.#log.warn("node gone; its engines stay in routing while they answer", {
        nodeId: live.nodeId,
        reason,
        graceMs,
        kept: kept.size,
      });
      return this.onReport();
    }
    for (const id of live.replicas.keys()) this.deps.replicas.remove(routeId(live.nodeId, id));
    this.onReport();
    // Removed on purpose, stopped by its operator, or our own shutdown: not a loss.
    if (notLoss.has(reason)) {
      this.#log.info("node left", { nodeId: live.nodeId, reason });
    } else {
      this.#log.warn("node lost", { nodeId: live.nodeId, reason });
      this.deps.events?.lost(live.name, reason);
    }
  }

  /**
   * Where a node that is not connected stands: `grace` while its engines are kept in routing,
   * `lost` once that ended, undefined when this control plane has not seen it go (it started
   * since, so only the time since the node was last heard can tell).
   */
  absence(nodeId: string): "grace" | "lost" | undefined {
    if (this.#live.has(nodeId)) return undefined;
    const held = this.#held.get(nodeId);
    if (held) return held.told ? "lost" : "grace";
    return this.#gone.has(nodeId) ? "lost" : undefined;
  }

  /** What each connected node last said, for the reconciler's snapshot. Read-only. */
  connected(): LiveNode[] {
    return [...this.#live.values()].filter((l) => l.ready).map((l) => ({
      nodeId: l.nodeId,
      connectedAt: l.connectedAt,
      lastHeard: l.lastHeard,
      ...(l.heartbeat ? { heartbeat: l.heartbeat } : {}),
      replicas: [...l.replicas.values()].map((s) => {
        const error = s.error ?? l.errors.get(s.replicaId);
        return error ? { ...s, error } : s;
      }),
      errors: new Map(l.errors),
    }));
  }

  // ---- the admin API's operations ----

  async list(): Promise<NodeView[]> {
    return (await this.deps.nodes.list()).map((n) => this.#view(n, []));
  }

  async get(idOrName: string): Promise<NodeView> {
    const node = await this.deps.nodes.find(idOrName);
    return this.#view(node, await this.deps.nodes.desired(node.id));
  }

  async setFlags(
    idOrName: string,
    flags: { cordoned: boolean; draining: boolean },
  ): Promise<NodeView> {
    const node = await this.deps.nodes.find(idOrName);
    await this.deps.nodes.update(node.id, flags);
    return this.get(node.id);
  }

  /** Revokes the node's credential, closes its channel and forgets its replicas. */
  async remove(idOrName: string): Promise<NodeView> {
    const node = await this.deps.nodes.find(idOrName);
    const view = this.#view(node, []);
    await this.deps.nodes.remove(node.id);
    const live = this.#live.get(node.id);
    if (live) this.#drop(live, 4401, "node removed");
    const held = this.#held.get(node.id);
    if (held) {
      held.told = true;
      this.#release(node.id, held, "node removed");
    }
    this.#log.info("node removed", { nodeId: node.id, name: node.name });
    return { ...view, state: "lost", connected: false };
  }

  async startReplica(
    idOrName: string,
    input: {
      replicaId: string;
      model: string;
      engine: string;
      modelPath?: string;
      args: string[];
      launch?: ReplicaLaunch;
    },
  ): Promise<ReplicaView> {
    const node = await this.deps.nodes.find(idOrName);
    const d = await this.deps.nodes.addReplica({
      nodeId: node.id,
      replicaId: input.replicaId,
      model: input.model,
      engine: input.engine,
      modelPath: input.modelPath ?? null,
      args: input.args,
      ...(input.launch ? { launch: input.launch } : {}),
    });
    if (!this.deps.catalog.get(d.model)) {
      await this.deps.catalog.upsert({
        name: d.model,
        engine: d.engine,
        source: d.modelPath ?? "",
      });
    }
    const live = this.#live.get(node.id);
    if (live?.ready) this.#sendStart(live, d);
    return live?.replicas.get(d.replicaId) ?? pendingView(d);
  }

  /**
   * Sends a weights command (`fetch_weights` or `remove_weights`) to a connected node and waits
   * for its answer; progress goes to `onProgress`. Rejects when the node is not connected, answers
   * with a failure, or goes away first.
   */
  weightsCommand(
    nodeId: string,
    msg:
      | Omit<Extract<ServerMessage, { type: "fetch_weights" }>, "id">
      | Omit<Extract<ServerMessage, { type: "remove_weights" }>, "id">,
    onProgress?: (p: WeightsProgress) => void,
  ): Promise<{ path?: string }> {
    const live = this.#live.get(nodeId);
    if (!live?.ready) return Promise.reject(new Error("the node is not connected"));
    const id = ulid();
    const { promise, resolve, reject } = Promise.withResolvers<{ path?: string }>();
    this.#weightsWaits.set(id, { nodeId, resolve, reject, ...(onProgress ? { onProgress } : {}) });
    this.#send(live, { ...msg, id } as ServerMessage);
    return promise;
  }

  /**
   * The last `lines` lines of a replica's engine log, from the connected node that runs it. Only
   * an agent whose hello listed `engine_log` is asked: an older one would drop it unanswered.
   * Throws not_found when no node runs or holds that replica of that model.
   */
  engineLog(model: string, replicaId: string, lines: number): Promise<EngineLogAnswer> {
    const runs = (m: Map<string, ReplicaReport>) => m.get(replicaId)?.model === model;
    const live = [...this.#live.values()].find((l) => runs(l.replicas));
    if (!live) {
      const held = [...this.#held.values()].find((h) => runs(h.replicas));
      if (held) return Promise.resolve({ status: "not_connected", node: held.name });
      throw new AppError("not_found", { path: `replica ${replicaId}` });
    }
    if (!live.features.has(agentFeatures.engineLog)) {
      return Promise.resolve({ status: "agent_too_old", node: live.name, version: live.version });
    }
    const id = ulid();
    const answer = this.#logWaits.wait(id, live.nodeId, live.name);
    this.#send(live, { type: "engine_log", id, replicaId, lines });
    return answer;
  }

  async stopReplica(idOrName: string, replicaId: string): Promise<void> {
    const node = await this.deps.nodes.find(idOrName);
    const known = await this.deps.nodes.removeReplica(node.id, replicaId);
    const live = this.#live.get(node.id);
    if (!known && !live?.replicas.has(replicaId)) {
      throw new AppError("not_found", { path: `node ${node.name} replica ${replicaId}` });
    }
    if (live) {
      live.stopSent.add(replicaId);
      this.#send(live, { type: "stop_replica", id: ulid(), replicaId });
    }
  }

  #view(node: NodeRow, desired: DesiredReplica[]): NodeView {
    const live = this.#live.get(node.id);
    const connected = live !== undefined;
    const state: NodeState = !connected
      ? (node.lastHeardAt === null ? "waiting" : "lost")
      : node.draining
      ? "draining"
      : node.cordoned
      ? "cordoned"
      : "ready";
    const report = live?.heartbeat ?? (node.lastReport as Partial<Heartbeat> | null) ?? {};
    const replicas: ReplicaView[] = [...(live?.replicas.values() ?? [])].map((s) => {
      const error = s.error ?? live?.errors.get(s.replicaId);
      return error ? { ...s, error } : s;
    });
    for (const d of desired) {
      if (!replicas.some((s) => s.replicaId === d.replicaId)) {
        const error = live?.errors.get(d.replicaId);
        replicas.push({ ...pendingView(d), ...(error ? { error, state: "failed" } : {}) });
      }
    }
    return {
      id: node.id,
      name: node.name,
      state,
      connected,
      cordoned: node.cordoned,
      draining: node.draining,
      labels: node.labels,
      version: node.version,
      createdAt: node.createdAt,
      lastHeardAt: live?.lastHeard ?? node.lastHeardAt,
      ...(report.host ? { host: report.host } : {}),
      ...(report.gpu ? { gpu: report.gpu } : {}),
      ...(report.engines ? { engines: report.engines } : {}),
      replicas,
      warnings: live?.heartbeat?.warnings ?? [],
    };
  }

  /** Closes every channel with `code`: the nodes dial another control plane. */
  release(code: number, reason: string): void {
    for (const live of [...this.#live.values()]) this.#drop(live, code, reason);
  }

  close(): void {
    clearInterval(this.#timer);
    for (const live of [...this.#live.values()]) this.#drop(live, 1001, "control plane stopping");
  }
}

const agentStopping = "agent stopping";
const agentRestarting = "agent restarting";
const replacedReason = "replaced by a new connection";
const notLoss = new Set([
  "node removed",
  replacedReason,
  "control plane stopping",
  notLeaderReason,
  agentStopping,
]);

/** One bounded health probe of an engine, from the control plane. */
async function engineAnswers(baseUrl: string, key: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/health`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(heldProbeMs),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

function pendingView(d: DesiredReplica): ReplicaView {
  return {
    replicaId: d.replicaId,
    model: d.model,
    engine: d.engine,
    state: "starting",
    baseUrl: "",
    pid: 0,
    pending: true,
  };
}
