/** The nodes and their desired replicas in the store: what must survive a control plane restart. */
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { nodes, replicas } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { AppError } from "../../core/errors.ts";

export type NodeRow = typeof nodes.$inferSelect;
type ReplicaRow = typeof replicas.$inferSelect;

/** A replica its node is meant to run: the launch half of its replica row. */
export interface DesiredReplica {
  nodeId: string;
  replicaId: string;
  model: string;
  engine: string;
  modelPath: string | null;
  args: string[];
  createdAt: number;
  launch: Record<string, unknown> | null;
}

/** The launch half of a replica row; nulls (for none) are set together, read together. */
const noLaunch = { engine: null, modelPath: null, args: null, launch: null, desiredAt: null };

function toDesired(r: ReplicaRow): DesiredReplica | undefined {
  if (r.engine === null) return undefined;
  return {
    nodeId: r.nodeId,
    replicaId: r.id,
    model: r.model,
    engine: r.engine,
    modelPath: r.modelPath,
    args: r.args ?? [],
    createdAt: r.desiredAt ?? r.createdAt,
    launch: r.launch,
  };
}

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

  /** Deletes the node, which revokes its credential; its desired replicas go with it. */
  async remove(id: string): Promise<void> {
    await this.deps.store.write(async (tx) => {
      await tx.delete(replicas).where(eq(replicas.nodeId, id));
      await tx.delete(nodes).where(eq(nodes.id, id));
    });
  }

  async desired(nodeId: string): Promise<DesiredReplica[]> {
    const rows = await this.deps.store.db.select().from(replicas).where(
      and(eq(replicas.nodeId, nodeId), isNotNull(replicas.engine)),
    );
    return rows.flatMap((r) => toDesired(r) ?? []);
  }

  /** Records a replica the node must run; the same replica id on another node is a conflict. */
  async addReplica(
    input: Omit<DesiredReplica, "createdAt" | "launch"> & { launch?: DesiredReplica["launch"] },
  ): Promise<DesiredReplica> {
    const now = this.deps.clock.now();
    const row: DesiredReplica = { ...input, launch: input.launch ?? null, createdAt: now };
    return await this.deps.store.write(async (tx) => {
      const [existing] = await tx.select().from(replicas).where(eq(replicas.id, input.replicaId));
      if (existing && existing.nodeId !== input.nodeId) {
        throw new AppError("conflict", {
          detail: `replica '${input.replicaId}' already belongs to node ${existing.nodeId}`,
        });
      }
      const known = existing && toDesired(existing);
      if (known) return known;
      const launch = {
        engine: row.engine,
        modelPath: row.modelPath,
        args: row.args,
        launch: row.launch,
        desiredAt: now,
      };
      // The reconciler records a replica it places before its node is told to run it.
      if (existing) await tx.update(replicas).set(launch).where(eq(replicas.id, row.replicaId));
      else {
        await tx.insert(replicas).values({
          id: row.replicaId,
          nodeId: row.nodeId,
          model: row.model,
          createdAt: now,
          ...launch,
        });
      }
      return row;
    });
  }

  async removeReplica(nodeId: string, replicaId: string): Promise<boolean> {
    const gone = await this.deps.store.write(async (tx) => {
      const mine = and(eq(replicas.nodeId, nodeId), eq(replicas.id, replicaId));
      const cleared = await tx.update(replicas).set(noLaunch).where(
        and(mine, isNotNull(replicas.engine)),
      ).returning({ id: replicas.id });
      // The reconciler may still keep its record (a failed replica, for its back-off).
      await tx.delete(replicas).where(and(mine, isNull(replicas.state)));
      return cleared;
    });
    return gone.length > 0;
  }
}
