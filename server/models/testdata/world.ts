/**
 * A synthetic cluster for reconciler tests: nodes, the replica table, a FakeClock and "agents" that
 * report what the table says runs on them (stopped replicas vanish from their reports, as a stopped
 * process does). `step()` runs one reconcile and applies its commands.
 */
import { FakeClock } from "../../../core/clock.ts";
import type { NodeView } from "../cluster_snapshot.ts";
import { GiB } from "../memory_estimate.ts";
import { parseModel } from "../model_yaml.ts";
import { type Demand, reconcile, type ReconcileResult } from "../reconcile.ts";
import type { CatalogModel } from "../replica_need.ts";
import { applyCommands, type Replica, replicaUse } from "../replica.ts";

export function model(
  name: string,
  weightsGb: number,
  extra: Record<string, unknown> = {},
  profile: Record<string, unknown> = {},
): CatalogModel {
  const def = parseModel({
    name,
    source: `/srv/${name}.gguf`,
    trained_context: 8192,
    context_length: 2048,
    slots: 1,
    profiles: [{ engine: "llamacpp", gpus: 1, ...profile }],
    ...extra,
  });
  return { def, facts: { weightsBytes: weightsGb * GiB, layers: 8, kvHeads: 4, headDim: 64 } };
}

export class World {
  readonly clock = new FakeClock();
  replicas: Replica[] = [];
  demand = new Map<string, Demand>();
  #ids = 0;
  constructor(public nodes: NodeView[], public catalog: CatalogModel[]) {}

  snapshot() {
    return {
      nodes: this.nodes.map((n) => ({
        ...n,
        replicas: this.replicas.filter((s) =>
          s.node === n.name && s.state !== "stopped" && s.state !== "failed"
        ).map(replicaUse),
      })),
    };
  }

  step(): ReconcileResult {
    const res = reconcile({
      catalog: this.catalog,
      snapshot: this.snapshot(),
      replicas: this.replicas,
      demand: this.demand,
      clock: this.clock,
      newId: () => `s${++this.#ids}`,
    });
    this.replicas = applyCommands(this.replicas, res.commands, this.clock.now());
    return res;
  }

  /** Agents bring every starting replica to ready (or only those named). */
  ready(ids?: string[]) {
    for (const s of this.replicas) {
      if (["pending", "fetching", "starting"].includes(s.state) && (!ids || ids.includes(s.id))) {
        s.state = "ready";
        s.readyAt = this.clock.now();
        s.stateSince = this.clock.now();
      }
    }
  }

  /** Steps (with agents making replicas ready) until a step issues nothing. */
  settle(max = 20): ReconcileResult {
    for (let i = 0; i < max; i++) {
      const r = this.step();
      this.ready();
      if (!r.commands.length) return r;
    }
    throw new Error("the reconciler did not settle");
  }

  live(modelName?: string): Replica[] {
    return this.replicas.filter((s) =>
      ["pending", "fetching", "starting", "ready"].includes(s.state) &&
      (!modelName || s.model === modelName)
    );
  }
}
