/** The nodes and their desired shards in the store: what must survive a control plane restart. */
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { nodes, nodeShards } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { AppError } from "../../core/errors.ts";

export type NodeRow = typeof nodes.$inferSelect;
export type DesiredShard = typeof nodeShards.$inferSelect;

export class NodeStore {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  list(): Promise<NodeRow[]> {
    return this.deps.store.db.select().from(nodes).orderBy(nodes.createdAt);
  }

  /** By id, or by name when exactly one node has it. */
  async find(idOrName: string): Promise<NodeRow> {
    const [byId] = await this.deps.store.db.select().from(nodes).where(eq(nodes.id, idOrName));
    if (byId) return byId;
    const byName = await this.deps.store.db.select().from(nodes).where(eq(nodes.name, idOrName));
    if (byName.length === 1) return byName[0]!;
    if (byName.length > 1) {
      throw new AppError("conflict", {
        detail: `${byName.length} nodes are named '${idOrName}'; use the node's id`,
      });
    }
    throw new AppError("node_not_found", { node: idOrName });
  }

  async byCredential(credential: string): Promise<NodeRow | undefined> {
    const hash = await sha256Hex(credential);
    const [row] = await this.deps.store.db.select().from(nodes).where(
      eq(nodes.credentialHash, hash),
    );
    return row;
  }

  async update(
    id: string,
    set: Partial<
      Pick<NodeRow, "cordoned" | "draining" | "labels" | "version" | "lastHeardAt" | "lastReport">
    >,
  ): Promise<void> {
    await this.deps.store.write((tx) => tx.update(nodes).set(set).where(eq(nodes.id, id)));
  }

  /** Deletes the node, which revokes its credential; its desired shards go with it. */
  async remove(id: string): Promise<void> {
    await this.deps.store.write(async (tx) => {
      await tx.delete(nodeShards).where(eq(nodeShards.nodeId, id));
      await tx.delete(nodes).where(eq(nodes.id, id));
    });
  }

  desired(nodeId: string): Promise<DesiredShard[]> {
    return this.deps.store.db.select().from(nodeShards).where(eq(nodeShards.nodeId, nodeId));
  }

  /** Records a shard the node must run; the same shard id on another node is a conflict. */
  async addShard(
    input: Omit<DesiredShard, "createdAt" | "launch"> & { launch?: DesiredShard["launch"] },
  ): Promise<DesiredShard> {
    const row = { ...input, launch: input.launch ?? null, createdAt: this.deps.clock.now() };
    return await this.deps.store.write(async (tx) => {
      const [existing] = await tx.select().from(nodeShards).where(
        eq(nodeShards.shardId, input.shardId),
      );
      if (existing && existing.nodeId !== input.nodeId) {
        throw new AppError("conflict", {
          detail: `shard '${input.shardId}' already belongs to node ${existing.nodeId}`,
        });
      }
      if (existing) return existing;
      await tx.insert(nodeShards).values(row);
      return row;
    });
  }

  async removeShard(nodeId: string, shardId: string): Promise<boolean> {
    const gone = await this.deps.store.write((tx) =>
      tx.delete(nodeShards).where(
        and(eq(nodeShards.nodeId, nodeId), eq(nodeShards.shardId, shardId)),
      ).returning()
    );
    return gone.length > 0;
  }
}
