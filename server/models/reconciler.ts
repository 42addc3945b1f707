/**
 * The reconciler service: the control plane's side of the pure `reconcile` step. It runs the
 * step on a timer and on events (a node's report, demand, a catalog change), fed from the
 * catalog, the node hub's live reports, the replica table and the router's demand, and carries out
 * the commands: start → the hub's start-replica (with the placement's profile and cards), stop →
 * stop-replica, drain → the replica is marked draining in the router (no new requests; the step
 * stops it once its in-flight requests end or the grace is over).
 *
 * Only the leader reconciles (`deps.isLeader`, from server/control/leadership.ts): a standby's
 * timer runs but its steps do nothing. Settings are read per step, so they change live.
 */
import { safetensorsDir } from "./read_facts.ts";
import { ulid } from "ulid";
import { checkEngineFlags } from "../../core/engines/engine_flag_rules.ts";
import { UnsafeFlagError } from "../../core/engines/launch_plan_error.ts";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { ReplicaLaunch } from "../../core/protocol/messages.ts";
import type { NodeHub } from "../nodes/node_hub.ts";
import type { NodeStore } from "../nodes/node_store.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import { type ReplicaTable, routeId } from "../router/replicas.ts";
import { catalogModelOf } from "./catalog_row.ts";
import { type HubSnapshot, hubSnapshot } from "./hub_snapshot.ts";
import type { CatalogModel } from "./replica_need.ts";
import { type Demand, type Note, reconcile, type ReconcileSettings } from "./reconcile.ts";
import { applyCommands, type Command, type Replica, type StartCommand } from "./replica.ts";
import type { ReplicaRecords, StoredReplica } from "./replica_records.ts";
import type { PinnedSource } from "../../core/weights/pinned_source.ts";
import { traitsOf } from "../../core/engines/engine_traits.ts";
import { WaitingHeads } from "./waiting_heads.ts";

export interface ReconcilerSettings extends ReconcileSettings {
  intervalMs: number;
  /** A node gone this long is lost: its replicas are replaced (nodes.replace_after_ms). */
  replaceAfterMs: number;
  /** Extra engine arguments per engine (the sim's speed), added before the profile's own. */
  engineArgs?: Record<string, string[]>;
}

export interface ReconcilerDeps {
  clock: Clock;
  logger: Logger;
  catalog: ModelCatalog;
  hub: NodeHub;
  nodes: NodeStore;
  replicas: ReplicaTable;
  records: ReplicaRecords;
  settings: () => ReconcilerSettings;
  /** Whether this control plane holds the leader lease now; always, when not given. */
  isLeader?: () => boolean;
}

export class Reconciler {
  readonly #log: Logger;
  /** Since when this control plane leads: a node silent since before is not lost yet. */
  #startedAt: number;
  readonly #demand = new Map<string, Demand>();
  #notes = new Map<string, Note[]>();
  readonly #held = new Map<string, string>();
  /** Heads of sets placed but not sent: they wait for their workers to be ready. */
  readonly #heads = new WaitingHeads();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;
  #last: HubSnapshot | undefined;
  /** When each node was last heard, as the hub knew it (the store's copy is written lazily). */
  readonly #seen = new Map<string, number>();
  /** Called after every step (waiters for a model's first replica look again). */
  onStep: () => void = () => {};
  /** A standby's request waits for `model`: the leader must be told, since only it starts one. */
  onStandbyWant: (model: string) => void = () => {};

  constructor(private readonly deps: ReconcilerDeps) {
    this.#log = deps.logger.child({ component: "reconciler" });
    this.#startedAt = deps.clock.now();
  }

  /** Only the leader places and stops replicas. */
  isLeader(): boolean {
    return this.deps.isLeader?.() ?? true;
  }

  /**
   * This control plane has just become the leader: nodes that were on the previous one get
   * `lost_after_ms` to reconnect here before their replicas are counted lost.
   */
  tookOver(): void {
    this.#startedAt = this.deps.clock.now();
    this.kick();
  }

  start(): void {
    const tick = () => {
      if (this.#closed) return;
      this.#timer = setTimeout(async () => {
        await this.step();
        tick();
      }, this.deps.settings().intervalMs);
    };
    tick();
    this.kick();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  /** Runs a step soon; kicks while one runs make one more step after it. */
  kick(): void {
    if (this.#closed) return;
    queueMicrotask(() => this.step());
  }

  /** One step; concurrent calls coalesce. Resolves when the step (and any asked for) is done. */
  async step(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.#step();
        } catch (e) {
          this.#log.error("reconcile step failed", { error: e as Error });
        }
      } while (this.#again && !this.#closed);
    })();
    try {
      await this.#running;
    } finally {
      this.#running = undefined;
      this.onStep();
    }
  }

  /** The router: a request waits for a replica of `model` (counted until `done` is called). */
  want(model: string): () => void {
    const d = this.#demand.get(model) ?? { waiting: 0 };
    d.waiting++;
    d.lastRequestAt = this.deps.clock.now();
    this.#demand.set(model, d);
    if (!this.isLeader()) this.onStandbyWant(model);
    this.kick();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      d.waiting--;
      if (d.waiting <= 0 && this.#demand.get(model) === d) this.#demand.delete(model);
    };
  }

  notes(model: string): Note[] {
    return this.#notes.get(model) ?? [];
  }

  /** Where a model's replicas are, for the router's 503 and `ctl replicas`. */
  phase(model: string): { phase: string; detail?: string } {
    const live = this.deps.records.forModel(model);
    for (const p of ["starting", "fetching", "pending"] as const) {
      const s = live.find((x) => x.state === p);
      if (s) return { phase: p };
    }
    const note = this.notes(model)[0];
    if (note) return { phase: note.kind, detail: note.message };
    const failed = live.find((s) => s.state === "failed");
    if (failed) return { phase: "failed", detail: failed.reason ?? "" };
    return { phase: "pending" };
  }

  /** The last snapshot's node names, by node id. */
  nodeName(nodeId: string): string {
    return this.#last?.nameOf.get(nodeId) ?? nodeId;
  }

  /** The cluster and replicas as of now, for explain, plan and the admin API. */
  async view(): Promise<{ snap: HubSnapshot; replicas: Replica[] }> {
    const connected = this.deps.hub.connected();
    for (const l of connected) this.#seen.set(l.nodeId, l.lastHeard);
    const rows = (await this.deps.nodes.list()).map((r) => ({
      ...r,
      lastHeardAt: Math.max(r.lastHeardAt ?? 0, this.#seen.get(r.id) ?? 0) || null,
    }));
    const snap = hubSnapshot(rows, connected, {
      now: this.deps.clock.now(),
      startedAt: this.#startedAt,
      replaceAfterMs: this.deps.settings().replaceAfterMs,
      absence: (nodeId) => this.deps.hub.absence(nodeId),
    });
    this.#last = snap;
    return {
      snap,
      replicas: this.deps.records.all().map((s) => ({
        ...s,
        node: snap.nameOf.get(s.nodeId) ?? s.nodeId,
      })),
    };
  }

  catalogModels(): CatalogModel[] {
    const out: CatalogModel[] = [];
    const engineArgs = this.deps.settings().engineArgs;
    for (const e of this.deps.catalog.list()) {
      const m = catalogModelOf(e);
      if (!m) continue;
      if (engineArgs) m.engineArgs = engineArgs;
      // An hf: or URL source runs only as pinned: what a node fetches is checked against it.
      const kind = m.def.parsedSource?.kind;
      if ((kind === "hf" || kind === "url") && !e.origin) {
        m.held = this.#held.get(e.name) ?? "waiting for its source to be pinned";
      }
      // A row stored before the catalog ran the flag gate: its starts would only be refused by
      // the agent, again and again.
      const refused = refusedFlag(m);
      if (refused) m.held = refused;
      out.push(m);
    }
    return out;
  }

  /** Says why `model` waits for its pin (undefined: the default words); a step follows. */
  hold(model: string, reason: string | undefined): void {
    if (reason === undefined) this.#held.delete(model);
    else this.#held.set(model, reason);
    this.kick();
  }

  async #step(): Promise<void> {
    if (!this.isLeader()) return;
    const settings = this.deps.settings();
    const now = this.deps.clock.now();
    const { snap } = await this.view();
    const changed = this.#sync(snap, now, settings);
    const replicas: Replica[] = this.deps.records.all().map((s) => ({
      ...s,
      node: snap.nameOf.get(s.nodeId) ?? s.nodeId,
    }));
    const result = reconcile({
      catalog: this.catalogModels(),
      snapshot: snap.snapshot,
      replicas,
      demand: this.#demand,
      settings,
      clock: this.deps.clock,
      newId: () => `s-${ulid().toLowerCase()}`,
    });
    const notes = new Map<string, Note[]>();
    for (const n of result.notes) notes.set(n.model, [...(notes.get(n.model) ?? []), n]);
    this.#notes = notes;
    // Failed replicas are kept for the back-off and the avoided node, then forgotten.
    const forget = this.deps.records.all().filter((s) =>
      s.state === "failed" && now - s.stateSince > settings.failureAvoidMs
    ).map((s) => s.id);
    await this.deps.records.save(changed, forget);
    if (result.commands.length) await this.#apply(result.commands, snap, now, settings);
    await this.#startHeads(snap, settings);
  }

  /**
   * Sends each waiting head once all its workers are ready, with where each worker's tunnel
   * listens (its report's address); forgets a head that is no longer pending (stopped with its set).
   */
  async #startHeads(snap: HubSnapshot, settings: ReconcilerSettings): Promise<void> {
    // Placed by another leader (or before a restart): its record goes, and the next step stops
    // its workers and places the set again.
    const orphans = this.#heads.orphans(this.deps.records.all());
    if (orphans.length) {
      this.#log.warn("sets whose head was never sent are placed again", { replicaIds: orphans });
      await this.deps.records.save([], orphans);
      this.kick();
    }
    const reported = (w: StoredReplica) =>
      snap.live.get(w.nodeId)?.replicas.find((r) => r.replicaId === w.id)?.baseUrl;
    for (const { c, nodeId, head } of this.#heads.due(this.deps.records.all(), reported)) {
      try {
        await this.#start(c, nodeId, settings);
        // Sent: a starting head, no longer one waiting for its command.
        const now = this.deps.clock.now();
        await this.deps.records.save([{
          ...head,
          state: "starting",
          stateSince: now,
          progressAt: now,
        }]);
      } catch (e) {
        this.#log.warn("a set's head could not be sent", {
          replicaId: c.replicaId,
          error: e as Error,
        });
      }
    }
  }

  /** Agents' reports → replica states; the router's counts → in flight and last request. */
  #sync(snap: HubSnapshot, now: number, settings: ReconcilerSettings): StoredReplica[] {
    const changed: StoredReplica[] = [];
    for (const s of this.deps.records.all()) {
      const r = this.deps.replicas.get(routeId(s.nodeId, s.id));
      s.inFlight = r?.inFlight ?? 0;
      if (r?.lastRequestAt !== undefined) s.lastRequestAt = r.lastRequestAt;
      if (s.state === "stopped" || s.state === "failed" || s.state === "draining") continue;
      const live = snap.live.get(s.nodeId);
      if (!live) continue;
      const report = live.replicas.find((x) => x.replicaId === s.id);
      const error = live.errors.get(s.id);
      let next: Replica["state"] | undefined;
      let reason: string | undefined;
      if (report?.state === "ready") next = "ready";
      else if (report?.state === "failed" || (!report && error)) {
        next = "failed";
        reason = report?.error ?? error ?? "the engine did not start";
      } else if (
        report &&
        (report.state === "starting" || report.state === "restarting" ||
          report.state === "unhealthy")
      ) {
        next = s.state === "pending" || s.state === "fetching" ? "starting" : s.state;
        if (s.state === "ready") next = "starting";
      }
      if (!next || next === s.state) continue;
      s.state = next;
      s.stateSince = now;
      s.progressAt = now;
      if (next === "ready") s.readyAt = now;
      if (reason !== undefined) {
        s.reason = reason;
        this.#log.warn("replica failed", { replicaId: s.id, model: s.model, reason });
        // Its node must not start it again on a reconnect.
        this.deps.hub.stopReplica(s.nodeId, s.id).catch(() => {});
      }
      changed.push(s);
    }
    void settings;
    return changed;
  }

  async #apply(
    commands: Command[],
    snap: HubSnapshot,
    now: number,
    settings: ReconcilerSettings,
  ): Promise<void> {
    const before = this.deps.records.all().map((s) => ({
      ...s,
      node: snap.nameOf.get(s.nodeId) ?? s.nodeId,
    }));
    const after = applyCommands(before, commands, now);
    const byId = new Map(after.map((s) => [s.id, s]));
    const changed: StoredReplica[] = [];
    const removed: string[] = [];
    for (const c of commands) {
      const s = byId.get(c.replicaId);
      if (!s) continue;
      const nodeId = snap.idOf.get(s.node) ?? s.node;
      const stored: StoredReplica = { ...s, nodeId };
      if (c.kind === "stop" && !c.failed) removed.push(s.id);
      else changed.push(stored);
      this.#log.info(`replica ${c.kind}`, {
        replicaId: c.replicaId,
        model: c.model,
        node: c.node,
        reason: c.reason,
      });
    }
    await this.deps.records.save(changed, removed);
    for (const c of commands) {
      const nodeId = snap.idOf.get(c.node) ?? c.node;
      try {
        if (c.kind === "start" && c.set && traitsOf(c.engine)?.multiNode === "pipeline") {
          c.set.master = `${rendezvousHost(snap, c.set.head)}:${pipelinePort}`;
        }
        // A head waits for its workers (#startHeads sends it).
        if (c.kind === "start" && c.after?.length) this.#heads.wait(c, nodeId);
        else if (c.kind === "start") await this.#start(c, nodeId, settings);
        else if (c.kind === "drain") this.deps.replicas.drain(routeId(nodeId, c.replicaId));
        else {
          this.deps.replicas.drain(routeId(nodeId, c.replicaId));
          await this.deps.hub.stopReplica(nodeId, c.replicaId).catch(() => {});
        }
      } catch (e) {
        this.#log.warn("a replica command could not be sent", {
          replicaId: c.replicaId,
          kind: c.kind,
          error: e as Error,
        });
        if (c.kind === "start") {
          const s = this.deps.records.get(c.replicaId);
          if (s) {
            await this.deps.records.save([{
              ...s,
              state: "failed",
              stateSince: now,
              reason: (e as Error).message,
            }]);
          }
        }
      }
    }
  }

  async #start(c: StartCommand, nodeId: string, settings: ReconcilerSettings): Promise<void> {
    const model = this.deps.catalog.get(c.model);
    const profile = catalogModelOf(model!)?.def.profiles[c.profile];
    const launch: ReplicaLaunch = {
      contextLength: c.contextLength,
      parallel: c.slots,
      mode: c.embeddings ? "embedding" : "generate",
      allowPickle: c.allowPickle,
      gpus: c.gpus,
    };
    const traits = traitsOf(c.engine);
    if (traits?.layerOffload) {
      launch.gpuLayers = c.gpus.length ? 999 : 0;
      // llama-server's -c is the whole KV pool, shared by its -np slots.
      launch.contextLength = c.contextLength * c.slots;
    }
    if (traits?.tensorParallel && c.gpus.length > 1) launch.tensorParallel = c.gpus.length;
    if (c.set) launch.set = c.set;
    const origin = model?.origin;
    // An RPC worker lends memory; the head's engine sends it the layers, so it fetches nothing.
    const lender = c.set?.role === "worker" && traits?.multiNode === "rpc";
    if (lender) {
      await this.deps.hub.startReplica(nodeId, {
        replicaId: c.replicaId,
        model: c.model,
        engine: c.engine,
        args: [],
        launch,
      });
      return;
    }
    if (origin && origin.kind !== "local") {
      // A download can take an hour: it runs beside the loop, which sees its progress.
      this.#fetchThenStart(c, nodeId, origin, launch, profile?.args ?? c.args, settings);
      return;
    }
    // vLLM reads a set's folder (config and tokenizer beside the weights), never one file of it.
    const path = !c.source.startsWith("/")
      ? undefined
      : traits?.reads === "safetensors"
      ? safetensorsDir(c.source)
      : c.source;
    await this.deps.hub.startReplica(nodeId, {
      replicaId: c.replicaId,
      model: c.model,
      engine: c.engine,
      ...(path ? { modelPath: path } : {}),
      args: [...(settings.engineArgs?.[c.engine] ?? []), ...(profile?.args ?? c.args)],
      launch,
    });
  }

  /**
   * The node fetches the pinned weights (the replica is `fetching`, with bytes and, when the total
   * is known, a percent), then starts the engine on the local path it answered with.
   */
  async #fetchThenStart(
    c: StartCommand,
    nodeId: string,
    origin: PinnedSource,
    launch: ReplicaLaunch,
    args: string[],
    settings: ReconcilerSettings,
  ): Promise<void> {
    // The latest bytes ride on every save: saves overlap, and a later one must not undo them.
    let fetched: StoredReplica["fetched"];
    const update = async (patch: Partial<StoredReplica>) => {
      const s = this.deps.records.get(c.replicaId);
      if (!s || s.state === "stopped" || s.state === "failed" || s.state === "draining") return;
      await this.deps.records.save([{ ...s, ...(fetched ? { fetched } : {}), ...patch }]);
    };
    try {
      const now = this.deps.clock.now();
      await update({ state: "fetching", stateSince: now, progressAt: now });
      const { path } = await this.deps.hub.weightsCommand(nodeId, {
        type: "fetch_weights",
        source: c.source,
        pinned: origin,
        replicaId: c.replicaId,
      }, (p) => {
        // Bytes are the download's; the check after it (a re-read from 0) only shows it moves.
        if (p.phase === "fetching") {
          fetched = {
            bytes: p.bytesDone,
            ...(p.bytesTotal !== null ? { total: p.bytesTotal } : {}),
          };
        }
        update({ progressAt: this.deps.clock.now() }).catch(() => {});
      });
      const s = this.deps.records.get(c.replicaId);
      if (!s || s.state !== "fetching") return; // stopped or failed while it fetched
      await update({ state: "starting", stateSince: this.deps.clock.now() });
      await this.deps.hub.startReplica(nodeId, {
        replicaId: c.replicaId,
        model: c.model,
        engine: c.engine,
        ...(path ? { modelPath: path } : {}),
        args: [...(settings.engineArgs?.[c.engine] ?? []), ...args],
        launch,
      });
    } catch (e) {
      const reason = `fetching the weights failed: ${(e as Error).message}`;
      this.#log.warn("replica failed", { replicaId: c.replicaId, model: c.model, reason });
      await update({ state: "failed", stateSince: this.deps.clock.now(), reason }).catch(() => {});
    }
    this.kick();
  }

  /**
   * Once no replica of `model` is left, every connected node removes `origin`'s files, keeping
   * those any source in `keep` (the other models' origins) names. Waits at most `waitMs`.
   */
  /** Every connected node removes the fetched versions none of `keep` names. */
  async pruneWeights(keep: PinnedSource[]): Promise<{ nodes: number; failed: string[] }> {
    const failed: string[] = [];
    const nodes = this.deps.hub.connected();
    for (const n of nodes) {
      await this.deps.hub.weightsCommand(n.nodeId, { type: "remove_weights", paths: [], keep })
        .catch((e) => failed.push(`${this.nodeName(n.nodeId)}: ${(e as Error).message}`));
    }
    return { nodes: nodes.length, failed };
  }

  async purgeWeights(
    model: string,
    origin: PinnedSource,
    keep: PinnedSource[],
    waitMs = 120_000,
  ): Promise<{ nodes: number; failed: string[] }> {
    const until = Date.now() + waitMs;
    const live = () =>
      this.deps.records.forModel(model).filter((s) =>
        s.state !== "stopped" && s.state !== "failed"
      );
    while (live().length > 0 && Date.now() < until) {
      this.kick();
      await new Promise((r) => setTimeout(r, 200));
    }
    const failed: string[] = [];
    const nodes = this.deps.hub.connected();
    for (const n of nodes) {
      await this.deps.hub.weightsCommand(n.nodeId, {
        type: "remove_weights",
        paths: [],
        pinned: origin,
        keep,
      }).catch((e) => failed.push(`${n.nodeId}: ${(e as Error).message}`));
    }
    if (failed.length) this.#log.warn("some nodes did not remove the weights", { model, failed });
    return { nodes: nodes.length, failed };
  }
}

/** The flag gate's refusal of one of the model's profiles, if any. */
function refusedFlag(m: CatalogModel): string | undefined {
  for (const p of m.def.profiles) {
    try {
      checkEngineFlags(p.engine, p.args);
    } catch (e) {
      if (e instanceof UnsafeFlagError) return e.message;
      throw e;
    }
  }
  return undefined;
}

/** vLLM's rendezvous on a pipeline set's head (torch.distributed's own default port). */
const pipelinePort = 29500;

/** Where a set's other ranks reach its head: the host name its agent reports, else its node name. */
function rendezvousHost(snap: HubSnapshot, head: string): string {
  const id = snap.idOf.get(head);
  return (id && snap.live.get(id)?.heartbeat?.host?.hostname) || head;
}
