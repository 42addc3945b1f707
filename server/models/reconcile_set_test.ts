/**
 * A replica larger than any node, served by a set of nodes: the sim engine stands in for
 * llama.cpp's RPC split (its `multiNode` trait), so placement, ordering and loss are tested
 * without a GPU or a llama.cpp build.
 */
import { assert, assertEquals } from "../../tests/assert.ts";
import { GiB } from "./memory_estimate.ts";
import type { StartCommand } from "./replica.ts";
import { cpuNode } from "./testdata/cluster.ts";
import { model, World } from "./testdata/world.ts";

const kinds = (r: { commands: { kind: string; replicaId: string }[] }) =>
  r.commands.map((c) => `${c.kind} ${c.replicaId}`);

function world(ramGb: number[] = [8, 6, 4]) {
  const nodes = ramGb.map((g, i) => cpuNode(`n${i + 1}`, { ramTotal: g * GiB }));
  // 10 GB of memory: more than any node offers, less than the two roomiest together.
  return new World(nodes, [model("big", 1, {}, { engine: "sim", gpus: 0, memory_gb: 10 })]);
}

Deno.test("reconcile set: workers start before the head, which waits for them; shares add up", () => {
  const w = world();
  const r = w.step();
  const starts = r.commands as StartCommand[];
  assertEquals(starts.map((c) => [c.replicaId, c.node, c.set?.role]), [
    ["s1.w1", "n2", "worker"],
    ["s1", "n1", "head"],
  ]);
  const [worker, head] = starts as [StartCommand, StartCommand];
  assertEquals(head.after, ["s1.w1"]);
  // 8 layers by room (8 GB and 6 GB): the rounding's spare layer goes to the roomier head.
  assertEquals(head.set?.workers?.map((x) => [x.node, x.layers]), [["n2", 3]]);
  assertEquals([head.set?.layers, worker.set?.head], [5, "n1"]);
  assertEquals(head.ramBytes + worker.ramBytes, 10 * GiB);
  assert(head.reason.includes("head of a set over 2 nodes (n1 5L, n2 3L)"), head.reason);
  assertEquals(w.step().commands, [], "the set is one replica: nothing more starts");
  w.ready();
  assertEquals(w.settle().commands, []);
  assertEquals(w.live("big").length, 2, "head and worker");
});

Deno.test("reconcile set: a lost worker stops the head first, then the set is placed again", () => {
  const w = world([8, 6, 6]);
  w.step();
  w.ready();
  const n2 = w.nodes.find((n) => n.name === "n2")!;
  n2.state = "lost";
  const r = w.step();
  assertEquals(kinds(r).slice(0, 2), ["stop s1", "stop s1.w1"], "head before worker");
  assert(r.commands[0]!.reason.includes("worker s1.w1 on n2 lost"), r.commands[0]!.reason);
  // The head's memory on n1 counts until its agent has stopped it: the new set comes next step.
  assertEquals(r.commands.length, 2);
  const again = w.step().commands as StartCommand[];
  assertEquals(again.map((c) => [c.node, c.set?.role]), [["n3", "worker"], ["n1", "head"]]);
});

Deno.test("reconcile set: a worker that restarts under a running head takes the set down", () => {
  const w = world();
  w.step();
  w.ready();
  w.replicas.find((s) => s.id === "s1.w1")!.state = "starting"; // its rpc-server came back empty
  const r = w.step();
  assertEquals(kinds(r).slice(0, 2), ["stop s1", "stop s1.w1"]);
  assert(r.commands[0]!.reason.includes("is starting: the set restarts"));
});

Deno.test("reconcile set: a failed worker backs the model off; a removed model stops head then workers", () => {
  const w = world();
  w.step();
  const worker = w.replicas.find((s) => s.id === "s1.w1")!;
  Object.assign(worker, {
    state: "failed",
    reason: "rpc-server exited",
    stateSince: w.clock.now(),
  });
  const r = w.step();
  assertEquals(kinds(r), ["stop s1"], "the pending head goes; the failed worker is already down");
  assert(r.notes.some((n) => n.message.includes("retrying in 30s after a failed start")));

  const w2 = world();
  w2.step();
  w2.ready();
  w2.catalog = [];
  assertEquals(kinds(w2.step()), ["drain s1"], "the head drains; its workers wait under it");
  w2.replicas.find((s) => s.id === "s1")!.inFlight = 0;
  assertEquals(kinds(w2.step()), ["stop s1", "stop s1.w1"]);
});

Deno.test("reconcile set: a model one node holds is never split", () => {
  const w = world([16, 6]);
  const r = w.step() as { commands: StartCommand[] };
  assertEquals(r.commands.map((c) => [c.node, c.set]), [["n1", undefined]]);
});
