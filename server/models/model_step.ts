/**
 * One model's part of a reconcile step (see reconcile.ts for the order of things): eviction of
 * idle on-demand replicas, surplus, rolling restarts one at a time, placing missing replicas, and
 * making room on demand. It appends to the step's commands and notes and records in `nodes` the
 * room each start takes, so later models in the same step see it.
 */
import type { NodeView } from "./cluster_snapshot.ts";
import { place, type PlacementRequest } from "./placement.ts";
import { explainSummary } from "./explain_summary.ts";
import {
  type CatalogModel,
  contextOf,
  isEmbedding,
  replicaNeed,
  specHash,
} from "./replica_need.ts";
import { type Command, liveStates, type Replica } from "./replica.ts";
import { isWorker, workerId } from "./replica_set.ts";
import { placeAcross, type SetMember } from "./place_across.ts";
import type { ModelProfile } from "./model_schema.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import type { Note, ReconcileInput, ReconcileSettings } from "./reconcile.ts";

export const secs = (ms: number) => `${Math.round(ms / 1000)}s`;

export class ModelStep {
  constructor(
    private readonly input: ReconcileInput,
    private readonly settings: ReconcileSettings,
    private readonly now: number,
    private readonly nodes: NodeView[],
    private readonly commands: Command[],
    private readonly notes: Note[],
    private readonly gone: Set<string>,
    private readonly end: (s: Replica, kind: "drain" | "stop", reason: string) => void,
    private readonly failures: readonly Replica[],
  ) {}

  live(m: CatalogModel): Replica[] {
    return this.input.replicas.filter((s) =>
      s.model === m.def.name && liveStates.has(s.state) && !this.gone.has(s.id) && !isWorker(s.id)
    );
  }

  wanted(m: CatalogModel, s: Replica): string | undefined {
    const p = m.def.profiles[s.profile];
    return p ? specHash(m, p) : undefined;
  }

  stale(m: CatalogModel): Replica[] {
    return this.live(m).filter((s) => s.specHash !== this.wanted(m, s));
  }

  note(m: CatalogModel, kind: Note["kind"], message: string) {
    this.notes.push({ model: m.def.name, kind, message });
  }

  run(m: CatalogModel, soonFree: ReadonlySet<string>) {
    const { settings, now } = this;
    for (const s of this.stale(m)) {
      if (s.state !== "ready") this.end(s, "stop", "its settings changed before it was ready");
    }
    if (m.def.onDemand) {
      for (const s of this.live(m)) {
        if (s.state !== "ready" || s.inFlight > 0) continue;
        const idle = now - (s.lastRequestAt ?? s.readyAt ?? s.createdAt);
        const age = now - (s.readyAt ?? s.createdAt);
        if (idle >= settings.evictAfterIdleMs && age >= settings.minLifetimeMs) {
          this.end(s, "stop", `idle for ${secs(idle)} (on demand)`);
        }
      }
    }
    const live = this.live(m);
    const staleReady = live.filter((s) => s.specHash !== this.wanted(m, s));
    const fresh = live.filter((s) => s.specHash === this.wanted(m, s));
    const { min, max } = m.def.scaling;
    let target = min;
    if (m.def.onDemand) {
      const demanded = (this.input.demand?.get(m.def.name)?.waiting ?? 0) > 0;
      target = Math.max(fresh.length, staleReady.length, demanded ? 1 : 0, min);
    }
    target = Math.min(target, max);
    const count = live.length;

    if (count > target && !(staleReady.length && fresh.length && count === target + 1)) {
      const order = [
        ...staleReady,
        ...fresh.filter((s) => s.state !== "ready"),
        ...fresh.filter((s) => s.state === "ready").sort((a, b) =>
          a.inFlight - b.inFlight || (a.lastRequestAt ?? 0) - (b.lastRequestAt ?? 0)
        ),
      ];
      for (const s of order.slice(0, count - target)) {
        this.end(s, s.state === "ready" ? "drain" : "stop", `scaled to ${target}`);
      }
      return;
    }

    if (staleReady.length) return this.roll(m, staleReady, fresh, target, soonFree);

    const failed =
      this.failures.filter((s) =>
        s.model === m.def.name && now - s.stateSince < settings.failureBackoffMs
      ).sort((a, b) => b.stateSince - a.stateSince)[0];
    for (let have = count; have < target; have++) {
      if (failed) {
        const left = settings.failureBackoffMs - (now - failed.stateSince);
        this.note(m, "waiting", `retrying in ${secs(left)} after a failed start: ${failed.reason}`);
        return;
      }
      if (this.start(m, "scaling", soonFree) !== "started") return;
    }
  }

  /** One replacement at a time, beside the old; the old drains once the new one is ready. */
  roll(
    m: CatalogModel,
    staleReady: Replica[],
    fresh: Replica[],
    target: number,
    soon: ReadonlySet<string>,
  ) {
    const coming = fresh.find((s) => s.state !== "ready");
    if (coming) {
      this.note(m, "waiting", `restart: replacement ${coming.id} is ${coming.state}`);
      return;
    }
    const old = [...staleReady].sort((a, b) =>
      a.inFlight - b.inFlight || (a.lastRequestAt ?? 0) - (b.lastRequestAt ?? 0)
    )[0]!;
    if (fresh.length + staleReady.length > target) {
      this.end(old, "drain", `replaced (settings changed)`);
      return;
    }
    const own = new Set(staleReady.map((s) => s.id));
    const others = new Set([...soon].filter((id) => !own.has(id)));
    const started = this.start(m, "restart (settings changed)", others, true);
    if (started !== "unplaceable") return;
    const req = this.request(m);
    const readyOthers = fresh.length + staleReady.length - 1;
    if (req && place({ ...req, ignoreReplicas: new Set([old.id]) }, this.nodes).ok) {
      if (readyOthers > 0 || m.restartInPlace) {
        this.end(old, "drain", "restarted in place: no room beside it");
      } else {
        this.note(
          m,
          "waiting",
          `restart: no room beside the only replica ${old.id}; restart it in place to proceed`,
        );
      }
    } else if (req) {
      this.note(m, "unplaceable", `restart: ${explainSummary(place(req, this.nodes))}`);
    }
  }

  /** The first profile's request, for what-if checks. */
  request(m: CatalogModel): PlacementRequest | undefined {
    const p = m.def.profiles[0];
    return p ? replicaNeed(m, p).request : undefined;
  }

  /**
   * Places and starts one replica. When nothing fits: makes room (on demand), or says it waits
   * for room that `soonFree` replicas give back, or that it fits nowhere (unless `quiet`).
   */
  start(
    m: CatalogModel,
    reason: string,
    soonFree: ReadonlySet<string>,
    quiet = false,
  ): "started" | "waiting" | "unplaceable" {
    const live = this.live(m);
    const order = m.def.profiles.map((p, i) => ({ p, i })).sort((a, b) =>
      b.p.priority - a.p.priority ||
      live.filter((s) => s.profile === a.i).length / a.p.weight -
        live.filter((s) => s.profile === b.i).length / b.p.weight ||
      a.i - b.i
    );
    let firstFail: { req: PlacementRequest; res: ReturnType<typeof place> } | undefined;
    const avoid = new Set(
      this.failures.filter((s) =>
        s.model === m.def.name && this.now - s.stateSince < this.settings.failureAvoidMs
      ).map((s) => s.node),
    );
    for (const { p, i } of order) {
      const need = replicaNeed(m, p);
      let res = place({ ...need.request, avoidNodes: avoid }, this.nodes);
      if (!res.ok && avoid.size) res = place(need.request, this.nodes);
      if (!res.ok && engineTraits[p.engine].multiNode) {
        // No node holds it alone: a set of nodes may, head and workers.
        let set = placeAcross({ ...need.request, avoidNodes: avoid }, this.nodes, m.facts.layers);
        if (!set.ok && avoid.size) set = placeAcross(need.request, this.nodes, m.facts.layers);
        if (set.ok) {
          this.startSet(m, p, i, need.request, set.members, reason);
          return "started";
        }
      }
      if (!res.ok) {
        firstFail ??= { req: need.request, res };
        continue;
      }
      const replicaId = this.input.newId();
      const { context, slots } = contextOf(m);
      this.commands.push({
        kind: "start",
        replicaId,
        model: m.def.name,
        node: res.node,
        profile: i,
        engine: p.engine,
        args: p.args,
        gpus: res.gpus,
        perCardBytes: need.request.perCardBytes,
        ramBytes: need.request.ramBytes,
        cores: need.request.cores,
        source: m.def.source ?? "",
        contextLength: context,
        slots,
        embeddings: isEmbedding(m.def),
        allowPickle: m.def.allowPickle,
        specHash: specHash(m, p),
        reason,
      });
      const node = this.nodes.find((n) => n.name === res.node)!;
      node.replicas.push({
        replicaId,
        model: m.def.name,
        gpus: res.gpus,
        perCardBytes: need.request.perCardBytes,
        ramBytes: need.request.ramBytes,
        cores: need.request.cores,
      });
      return "started";
    }
    if (!firstFail) return "unplaceable";
    if (m.def.onDemand && this.makeRoom(m, firstFail.req)) return "waiting";
    // Replicas stopped or drained in this very step give their room back too.
    const soon = new Set([...soonFree, ...this.gone]);
    if (soon.size && place({ ...firstFail.req, ignoreReplicas: soon }, this.nodes).ok) {
      this.note(m, "waiting", "waiting for room that draining or restarting replicas give back");
      return "waiting";
    }
    if (!quiet) this.note(m, "unplaceable", explainSummary(firstFail.res));
    return "unplaceable";
  }

  /**
   * Starts a set: its workers first, then the head, which the reconciler sends once every worker
   * is ready (`after`), since the head's engine connects to them as it loads.
   */
  startSet(
    m: CatalogModel,
    p: ModelProfile,
    profile: number,
    req: PlacementRequest,
    members: SetMember[],
    reason: string,
  ) {
    const headId = this.input.newId();
    const [head, ...workers] = members as [SetMember, ...SetMember[]];
    const { context, slots } = contextOf(m);
    const common = {
      kind: "start" as const,
      model: m.def.name,
      profile,
      engine: p.engine,
      args: p.args,
      cores: req.cores,
      source: m.def.source ?? "",
      contextLength: context,
      slots,
      embeddings: isEmbedding(m.def),
      allowPickle: m.def.allowPickle,
      specHash: specHash(m, p),
    };
    const use = (member: SetMember) =>
      req.gpus > 0
        ? { gpus: member.gpus, perCardBytes: member.bytes, ramBytes: req.ramBytes }
        : { gpus: [], perCardBytes: 0, ramBytes: member.bytes };
    const ids = workers.map((_, k) => workerId(headId, k + 1));
    const nodes = members.length;
    const split = members.map((x) => `${x.node}${x.layers !== undefined ? ` ${x.layers}L` : ""}`);
    workers.forEach((w, k) => {
      this.commands.push({
        ...common,
        replicaId: ids[k]!,
        node: w.node,
        ...use(w),
        reason: `${reason}: worker ${k + 1} of a set over ${nodes} nodes (${split.join(", ")})`,
        set: {
          role: "worker",
          head: head.node,
          nodes,
          rank: k + 1,
          ...(w.layers !== undefined ? { layers: w.layers } : {}),
          memoryBytes: w.bytes * Math.max(1, req.gpus),
        },
      });
    });
    this.commands.push({
      ...common,
      replicaId: headId,
      node: head.node,
      ...use(head),
      reason: `${reason}: head of a set over ${nodes} nodes (${split.join(", ")})`,
      set: {
        role: "head",
        head: head.node,
        nodes,
        rank: 0,
        ...(head.layers !== undefined ? { layers: head.layers } : {}),
        workers: workers.map((w) => ({
          node: w.node,
          // Filled in from the worker's report when the head is sent.
          address: "",
          ...(w.layers !== undefined ? { layers: w.layers } : {}),
        })),
      },
      after: ids,
    });
    for (const [k, member] of members.entries()) {
      const node = this.nodes.find((n) => n.name === member.node)!;
      const u = use(member);
      node.replicas.push({
        replicaId: k === 0 ? headId : ids[k - 1]!,
        model: m.def.name,
        gpus: u.gpus,
        perCardBytes: u.perCardBytes,
        ramBytes: u.ramBytes,
        cores: req.cores,
      });
    }
  }

  /** Stops the idlest evictable on-demand replicas of other models whose room lets `req` fit. */
  makeRoom(m: CatalogModel, req: PlacementRequest): boolean {
    const { now, settings } = this;
    const onDemand = new Set(
      this.input.catalog.filter((c) => c.def.onDemand && c.def.name !== m.def.name)
        .map((c) => c.def.name),
    );
    const idleSince = (s: Replica) => s.lastRequestAt ?? s.readyAt ?? s.createdAt;
    const candidates = this.input.replicas.filter((s) =>
      onDemand.has(s.model) && s.state === "ready" && !this.gone.has(s.id) && s.inFlight === 0 &&
      !isWorker(s.id) // a set goes by its head, which takes its workers with it
    ).sort((a, b) => idleSince(a) - idleSince(b));
    const old = (s: Replica) => now - (s.readyAt ?? s.createdAt) >= settings.minLifetimeMs;
    const victims: Replica[] = [];
    for (const s of candidates.filter(old)) {
      victims.push(s);
      if (place({ ...req, ignoreReplicas: new Set(victims.map((v) => v.id)) }, this.nodes).ok) {
        for (const v of victims) {
          this.end(v, "stop", `makes room for ${m.def.name} (idle ${secs(now - idleSince(v))})`);
        }
        this.note(m, "waiting", `waiting for room from ${victims.map((v) => v.model).join(", ")}`);
        return true;
      }
    }
    const young = candidates.filter((s) => !old(s));
    const all = new Set([...victims, ...young].map((s) => s.id));
    if (young.length && place({ ...req, ignoreReplicas: all }, this.nodes).ok) {
      const until = Math.min(
        ...young.map((s) => (s.readyAt ?? s.createdAt) + settings.minLifetimeMs),
      );
      this.note(
        m,
        "waiting",
        `the room is held by ${young.map((s) => s.model).join(", ")} within its minimum life, for ${
          secs(until - now)
        } more`,
      );
      return true;
    }
    return false;
  }
}
