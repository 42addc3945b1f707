/**
 * The reconciler's record (ReplicaRecords) and what a node is meant to run (NodeStore) are two halves
 * of one `replicas` row: each comes and goes without losing the other.
 */
import { FakeClock } from "../../core/clock.ts";
import { nodes as nodeRows, replicas } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import { storeTest } from "../../tests/helpers/stores.ts";
import { assertEquals } from "../../tests/assert.ts";
import { NodeStore } from "../nodes/node_store.ts";
import { ReplicaRecords, type StoredReplica } from "./replica_records.ts";

/** Registers `fn` once per dialect, with a store holding node n1. */
function replicaTest(name: string, fn: (store: Store, nodes: NodeStore) => Promise<void>): void {
  storeTest(name, async (store) => {
    await store.write((tx) =>
      tx.insert(nodeRows).values({
        id: "n1",
        name: "gpu-a",
        labels: {},
        credentialHash: "h1",
        cordoned: false,
        draining: false,
        createdAt: 1,
      })
    );
    await fn(store, new NodeStore({ store, clock: new FakeClock(5_000) }));
  });
}

const placed = (id: string, nodeId = "n1"): StoredReplica => ({
  id,
  model: "qwen",
  nodeId,
  node: nodeId,
  profile: 0,
  gpus: [0],
  perCardBytes: 1_000,
  ramBytes: 2_000,
  cores: 2,
  specHash: "h",
  state: "pending",
  createdAt: 4_000,
  stateSince: 4_000,
  inFlight: 0,
});

const start = (replicaId: string) => ({
  nodeId: "n1",
  replicaId,
  model: "qwen",
  engine: "sim",
  modelPath: null,
  args: ["--fast"],
});

const ids = async (store: Store) =>
  (await store.db.select({ id: replicas.id }).from(replicas)).map((r) => r.id);

replicaTest(
  "replica table: placement and launch share a row; each half goes on its own",
  async (store, nodes) => {
    const table = await ReplicaRecords.load(store);
    await table.save([placed("s1")]);
    await nodes.addReplica({ ...start("s1"), launch: { parallel: 2 } });
    assertEquals(await ids(store), ["s1"]);
    assertEquals((await ReplicaRecords.load(store)).get("s1"), { ...placed("s1"), inFlight: 0 });
    assertEquals(await nodes.desired("n1"), [{
      ...start("s1"),
      createdAt: 5_000,
      launch: { parallel: 2 },
    }]);

    // Failed: the node stops it, the reconciler keeps its record for the back-off.
    await table.save([{ ...placed("s1"), state: "failed", reason: "exit 1" }]);
    assertEquals(await nodes.removeReplica("n1", "s1"), true);
    assertEquals(await nodes.desired("n1"), []);
    assertEquals((await ReplicaRecords.load(store)).get("s1")?.reason, "exit 1");
    assertEquals(await nodes.removeReplica("n1", "s1"), false);

    await table.save([], ["s1"]);
    assertEquals(await ids(store), []);
  },
);

replicaTest("replica table: a replica started by hand is the node's only", async (store, nodes) => {
  await nodes.addReplica(start("by-hand"));
  assertEquals((await ReplicaRecords.load(store)).all(), []);
  assertEquals((await nodes.desired("n1")).map((d) => d.replicaId), ["by-hand"]);
  assertEquals(await nodes.removeReplica("n1", "by-hand"), true);
  assertEquals(await ids(store), []);
});

replicaTest(
  "replica table: a replica on a removed node is kept in memory, not stored",
  async (store, nodes) => {
    const table = await ReplicaRecords.load(store);
    await table.save([placed("s1")]);
    await nodes.addReplica(start("s1"));
    await nodes.remove("n1");
    assertEquals(await ids(store), []);
    await table.save([{ ...placed("s1"), state: "starting" }]);
    assertEquals(table.get("s1")?.state, "starting");
    assertEquals(await ids(store), []);
  },
);
