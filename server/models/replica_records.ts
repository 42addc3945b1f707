/**
 * The reconciler's records of the replicas it placed, in the store (the placement half of
 * `replicas`) and mirrored in memory. What must survive a restart is stored (placement, state,
 * reason); what changes per request (in flight, last request) or per download tick stays in
 * memory. Nodes are stored by id; the pure core names them (`Replica.node`) by the snapshot's name,
 * which the reconciler maps.
 */
import { and, eq, inArray, isNotNull, isNull, type SQL } from "drizzle-orm";
import { nodes, replicas } from "../../db/schema.ts";
import type { Store, Tx } from "../../db/store.ts";
import type { Replica, ReplicaState } from "./replica.ts";

/** A stored replica: the pure core's record with its node's id. */
export interface StoredReplica extends Replica {
  nodeId: string;
}

type Row = typeof replicas.$inferSelect;
/** The placement half of a replica row; its node's half (engine … launch) is NodeStore's. */
type Placement = Omit<Row, "engine" | "modelPath" | "args" | "launch" | "desiredAt">;

const noPlacement = {
  profile: null,
  gpus: null,
  perCardBytes: null,
  ramBytes: null,
  cores: null,
  specHash: null,
  state: null,
  stateSince: null,
  readyAt: null,
  reason: null,
};

function toRow(s: StoredReplica): Placement {
  return {
    id: s.id,
    model: s.model,
    nodeId: s.nodeId,
    profile: s.profile,
    gpus: s.gpus,
    perCardBytes: s.perCardBytes,
    ramBytes: s.ramBytes,
    cores: s.cores,
    specHash: s.specHash,
    state: s.state,
    createdAt: s.createdAt,
    stateSince: s.stateSince,
    readyAt: s.readyAt ?? null,
    reason: s.reason ?? null,
  };
}

/** Rows read are those with a placement (`state` set): its columns are set together. */
function fromRow(r: Row): StoredReplica {
  const s: StoredReplica = {
    id: r.id,
    model: r.model,
    nodeId: r.nodeId,
    node: r.nodeId,
    profile: r.profile!,
    gpus: r.gpus!,
    perCardBytes: r.perCardBytes!,
    ramBytes: r.ramBytes!,
    cores: r.cores!,
    specHash: r.specHash!,
    state: r.state as ReplicaState,
    createdAt: r.createdAt,
    stateSince: r.stateSince!,
    inFlight: 0,
  };
  if (r.readyAt !== null) s.readyAt = r.readyAt;
  if (r.reason !== null) s.reason = r.reason;
  return s;
}

export class ReplicaRecords {
  #byId = new Map<string, StoredReplica>();

  private constructor(private readonly store: Store) {}

  static async load(store: Store): Promise<ReplicaRecords> {
    const t = new ReplicaRecords(store);
    await t.reload();
    return t;
  }

  /**
   * Reads the placements again: a control plane that becomes the leader takes over what the
   * previous one placed, which its own copy never saw.
   */
  async reload(): Promise<void> {
    const rows = await this.store.db.select().from(replicas).where(isNotNull(replicas.state));
    this.#byId = new Map(rows.map((r) => [r.id, fromRow(r)]));
  }

  all(): StoredReplica[] {
    return [...this.#byId.values()];
  }

  get(id: string): StoredReplica | undefined {
    return this.#byId.get(id);
  }

  forModel(model: string): StoredReplica[] {
    return this.all().filter((s) => s.model === model);
  }

  /**
   * Writes the given replicas (inserted or replaced) and deletes `removed`, in one transaction.
   * A replica whose node was removed meanwhile stays in memory only: its row went with the node,
   * the foreign key refuses it again, and the next step stops it.
   */
  async save(changed: readonly StoredReplica[], removed: readonly string[] = []): Promise<void> {
    if (!changed.length && !removed.length) return;
    await this.store.write(async (tx) => {
      const known = await nodesKnown(tx, changed.map((s) => s.nodeId));
      for (const s of changed) {
        if (!known.has(s.nodeId)) continue;
        const row = toRow(s);
        await tx.insert(replicas).values(row).onConflictDoUpdate({ target: replicas.id, set: row });
      }
      if (removed.length) await forgetPlacement(tx, inArray(replicas.id, [...removed]));
    });
    for (const s of changed) this.#byId.set(s.id, s);
    for (const id of removed) this.#byId.delete(id);
  }

  async removeModel(model: string): Promise<void> {
    await this.store.write((tx) => forgetPlacement(tx, eq(replicas.model, model)));
    for (const s of this.forModel(model)) this.#byId.delete(s.id);
  }
}

async function nodesKnown(tx: Tx, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await tx.select({ id: nodes.id }).from(nodes).where(
    inArray(nodes.id, [...new Set(ids)]),
  );
  return new Set(rows.map((r) => r.id));
}

/** Drops the placement half; a row whose node no longer runs it (no engine) goes altogether. */
async function forgetPlacement(tx: Tx, which: SQL): Promise<void> {
  await tx.update(replicas).set(noPlacement).where(which);
  await tx.delete(replicas).where(and(which, isNull(replicas.engine)));
}
