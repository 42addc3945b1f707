/**
 * The reconciler's shard table in the store (`shards`), mirrored in memory. What must survive a
 * restart is stored (placement, state, reason); what changes per request (in flight, last
 * request) or per download tick stays in memory. Nodes are stored by id; the pure core names them
 * (`Shard.node`) by the snapshot's name, which the reconciler maps.
 */
import { eq, inArray } from "drizzle-orm";
import { shards as shardsTable } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import type { ReplicaState, Shard } from "./shard.ts";

/** A stored shard: the pure core's record with its node's id. */
export interface StoredShard extends Shard {
  nodeId: string;
}

type Row = typeof shardsTable.$inferSelect;

function toRow(s: StoredShard): Row {
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

function fromRow(r: Row): StoredShard {
  const s: StoredShard = {
    id: r.id,
    model: r.model,
    nodeId: r.nodeId,
    node: r.nodeId,
    profile: r.profile,
    gpus: r.gpus,
    perCardBytes: r.perCardBytes,
    ramBytes: r.ramBytes,
    cores: r.cores,
    specHash: r.specHash,
    state: r.state as ReplicaState,
    createdAt: r.createdAt,
    stateSince: r.stateSince,
    inFlight: 0,
  };
  if (r.readyAt !== null) s.readyAt = r.readyAt;
  if (r.reason !== null) s.reason = r.reason;
  return s;
}

export class ShardTable {
  #byId = new Map<string, StoredShard>();

  private constructor(private readonly store: Store) {}

  static async load(store: Store): Promise<ShardTable> {
    const t = new ShardTable(store);
    for (const r of await store.db.select().from(shardsTable)) t.#byId.set(r.id, fromRow(r));
    return t;
  }

  all(): StoredShard[] {
    return [...this.#byId.values()];
  }

  get(id: string): StoredShard | undefined {
    return this.#byId.get(id);
  }

  forModel(model: string): StoredShard[] {
    return this.all().filter((s) => s.model === model);
  }

  /** Writes the given shards (inserted or replaced) and deletes `removed`, in one transaction. */
  async save(changed: readonly StoredShard[], removed: readonly string[] = []): Promise<void> {
    if (!changed.length && !removed.length) return;
    await this.store.write(async (tx) => {
      for (const s of changed) {
        const row = toRow(s);
        await tx.insert(shardsTable).values(row).onConflictDoUpdate({
          target: shardsTable.id,
          set: row,
        });
      }
      if (removed.length) await tx.delete(shardsTable).where(inArray(shardsTable.id, [...removed]));
    });
    for (const s of changed) this.#byId.set(s.id, s);
    for (const id of removed) this.#byId.delete(id);
  }

  async removeModel(model: string): Promise<void> {
    await this.store.write((tx) => tx.delete(shardsTable).where(eq(shardsTable.model, model)));
    for (const s of this.forModel(model)) this.#byId.delete(s.id);
  }
}
