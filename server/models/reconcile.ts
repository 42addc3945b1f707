/**
 * The reconciler as one pure step: `reconcile({catalog, snapshot, replicas, demand, clock, newId})
 * → {commands, notes}`. The leader runs it every few seconds and whenever a report or the catalog
 * changes, applies the commands to its replica table (`applyCommands`) and sends them to agents.
 * Idempotent: once the table reflects the commands, the same inputs give no new commands.
 *
 * Per step, in order:
 * 1. Draining replicas stop when their last request ends, or when the drain grace is over.
 * 2. Replicas on a lost node are stopped (and so re-placed below); those of a removed or stopped
 *    model are drained (ready) or stopped.
 * 3. Per model (by name): replicas whose settings changed before they were ready are stopped;
 *    idle on-demand replicas past both `evict_after_idle` and `min_lifetime` are stopped; surplus
 *    is drained; a settings change restarts ready replicas one at a time, the replacement started
 *    beside the old one, the old drained only once the replacement is ready (so one stays ready);
 *    missing replicas are placed. What cannot happen now is said in `notes`: waiting (room that
 *    draining replicas or a protected on-demand replica will give back, a failure's back-off) or
 *    unplaceable (with every node's reason).
 * A model `held` (its remote source not pinned yet) starts and restarts nothing; its note says why.
 * On demand: a model with requests waiting and no replica gets one; when no card has room, the
 * idlest on-demand replica of another model that is past its minimum life and answering nothing
 * is stopped to make room ("taking turns on a card"); the start follows once its room is back.
 */
import type { Clock } from "../../core/clock.ts";
import { type ClusterSnapshot, type NodeView, withReplicas } from "./cluster_snapshot.ts";
import { ModelStep, secs } from "./model_step.ts";
import type { CatalogModel } from "./replica_need.ts";
import { type Command, liveStates, type Replica, replicaUse } from "./replica.ts";
import { headOf, isWorker, workersOf } from "./replica_set.ts";

export interface ReconcileSettings {
  evictAfterIdleMs: number;
  minLifetimeMs: number;
  drainGraceMs: number;
  /** After a failed start, how long before the model is started again. */
  failureBackoffMs: number;
  /** A node where the model failed this recently is passed over while another node fits. */
  failureAvoidMs: number;
  /** A replica fetching or starting with no progress this long has failed (a stalled download). */
  startupTimeoutMs: number;
}

export const defaultReconcileSettings: ReconcileSettings = {
  evictAfterIdleMs: 120_000,
  minLifetimeMs: 300_000,
  drainGraceMs: 300_000,
  failureBackoffMs: 30_000,
  failureAvoidMs: 600_000,
  startupTimeoutMs: 1_200_000,
};

/** From the router: requests waiting for a replica of the model, and the last one's time. */
export interface Demand {
  waiting: number;
  lastRequestAt?: number;
}

export interface ReconcileInput {
  catalog: readonly CatalogModel[];
  snapshot: ClusterSnapshot;
  replicas: readonly Replica[];
  demand?: ReadonlyMap<string, Demand>;
  settings?: Partial<ReconcileSettings>;
  clock: Clock;
  newId: () => string;
}

export interface Note {
  model: string;
  kind: "waiting" | "unplaceable";
  message: string;
}

export interface ReconcileResult {
  commands: Command[];
  notes: Note[];
}

export function reconcile(input: ReconcileInput): ReconcileResult {
  const settings = { ...defaultReconcileSettings, ...input.settings };
  const now = input.clock.now();
  const commands: Command[] = [];
  const notes: Note[] = [];
  const gone = new Set<string>();
  const models = new Map(input.catalog.map((m) => [m.def.name, m]));
  const nodeByName = new Map(input.snapshot.nodes.map((n) => [n.name, n]));
  const lost = (s: Replica) => nodeByName.get(s.node)?.state === "lost" || !nodeByName.has(s.node);
  const end = (s: Replica, kind: "drain" | "stop", reason: string) => {
    if (gone.has(s.id)) return;
    commands.push({ kind, replicaId: s.id, model: s.model, node: s.node, reason });
    gone.add(s.id);
    // A set stops head first, then its workers: the engine goes before the memory it runs in.
    if (kind === "stop" && !isWorker(s.id)) {
      for (const w of workersOf(input.replicas, s.id)) {
        if (!liveStates.has(w.state) || gone.has(w.id)) continue;
        commands.push({
          kind: "stop",
          replicaId: w.id,
          model: w.model,
          node: w.node,
          reason: `its head ${s.id} stopped`,
        });
        gone.add(w.id);
      }
    }
  };
  const byId = new Map(input.replicas.map((s) => [s.id, s]));
  const retire = (s: Replica, reason: string) =>
    end(s, s.state === "ready" ? "drain" : "stop", reason);

  // Failed replicas, including those failed by this step: the model backs off after them.
  const failures: Replica[] = input.replicas.filter((s) => s.state === "failed");
  // Room on each node: what agents report plus what the table has that they have not yet.
  const occupying = input.replicas.filter((s) =>
    (liveStates.has(s.state) || s.state === "draining") && !lost(s)
  );
  const nodes: NodeView[] = withReplicas(
    input.snapshot,
    occupying.map(replicaUse),
    new Map(occupying.map((s) => [s.id, s.node])),
  ).nodes.map((n) => ({ ...n, replicas: [...n.replicas] }));

  for (const s of input.replicas) {
    if (s.state === "draining") {
      if (lost(s)) end(s, "stop", `node ${s.node} lost`);
      else if (s.inFlight === 0) end(s, "stop", "drained");
      else if (now - s.stateSince >= settings.drainGraceMs) {
        end(s, "stop", `drain grace of ${secs(settings.drainGraceMs)} over`);
      }
      continue;
    }
    if (isWorker(s.id)) {
      const head = byId.get(headOf(s.id));
      const stalled = now - Math.max(s.progressAt ?? 0, s.stateSince);
      const why = workerTrouble(s, head, lost(s), stalled, settings.startupTimeoutMs);
      if (why && head && liveStates.has(head.state)) end(head, "stop", why);
      else if (
        liveStates.has(s.state) &&
        (!head || !liveStates.has(head.state) && head.state !== "draining")
      ) {
        end(s, "stop", "its head is gone");
      }
      continue;
    }
    if (!liveStates.has(s.state)) continue;
    const m = models.get(s.model);
    const stalled = now - Math.max(s.progressAt ?? 0, s.stateSince);
    if (lost(s)) end(s, "stop", `node ${s.node} lost`);
    else if (
      (s.state === "fetching" || s.state === "starting") && stalled >= settings.startupTimeoutMs
    ) {
      // Counted from the last progress, not the start: a model of hundreds of GB is not failed
      // while it still arrives, but a stalled download is.
      const reason = `no progress for ${secs(stalled)} while ${s.state}`;
      commands.push({
        kind: "stop",
        replicaId: s.id,
        model: s.model,
        node: s.node,
        reason,
        failed: true,
      });
      gone.add(s.id);
      failures.push({ ...s, state: "failed", stateSince: now, reason });
    } else if (!m || m.def.external) retire(s, "the model was removed");
    else if (m.stopped) retire(s, "an administrator stopped the model");
  }

  const draining = new Set(
    input.replicas.filter((s) => s.state === "draining" && !gone.has(s.id)).map((s) => s.id),
  );
  const restartingOld = new Set<string>();

  const step = new ModelStep(input, settings, now, nodes, commands, notes, gone, end, failures);
  const sorted = [...input.catalog].sort((a, b) => a.def.name.localeCompare(b.def.name));
  // Old replicas of every model being restarted count as room soon given back.
  for (const m of sorted) {
    for (const s of step.stale(m)) if (s.state === "ready") restartingOld.add(s.id);
  }
  for (const m of sorted) {
    if (m.stopped || m.def.external || !m.def.profiles.length) continue;
    if (m.held) {
      notes.push({ model: m.def.name, kind: "waiting", message: m.held });
      continue;
    }
    step.run(m, new Set([...draining, ...restartingOld]));
  }
  return { commands, notes };
}

/** Why a worker takes its set down: gone, failed, or no longer ready under a started head. */
function workerTrouble(
  w: Replica,
  head: Replica | undefined,
  isLost: boolean,
  stalled: number,
  startupTimeoutMs: number,
): string | undefined {
  const where = `worker ${w.id} on ${w.node}`;
  if (isLost) return `${where} lost: the set restarts`;
  if (w.state === "failed") return `${where} failed: ${w.reason ?? "its engine stopped"}`;
  if (w.state === "stopped") return `${where} stopped: the set restarts`;
  if ((w.state === "fetching" || w.state === "starting") && stalled >= startupTimeoutMs) {
    return `${where}: no progress for ${secs(stalled)} while ${w.state}`;
  }
  // The head's engine holds a connection to every worker: one that restarted lost its layers.
  const started = head?.state === "starting" || head?.state === "ready";
  if (started && w.state !== "ready") return `${where} is ${w.state}: the set restarts`;
  return undefined;
}
