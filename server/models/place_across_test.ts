import { assert, assertEquals } from "../../tests/assert.ts";
import { GiB } from "./memory_estimate.ts";
import { explainAcross, placeAcross } from "./place_across.ts";
import type { PlacementRequest } from "./placement.ts";
import { cpuNode, gpuNode } from "./testdata/cluster.ts";

const cpuReq = (gb: number, over: Partial<PlacementRequest> = {}): PlacementRequest => ({
  model: "big",
  engine: "sim",
  gpus: 0,
  perCardBytes: 0,
  ramBytes: gb * GiB,
  cores: 2,
  nodeSelector: {},
  tensorParallel: false,
  ...over,
});

Deno.test("placeAcross: the fewest nodes, roomiest first; layers in proportion to room", () => {
  const nodes = [
    cpuNode("a", { ramTotal: 10 * GiB }),
    cpuNode("b", { ramTotal: 30 * GiB }),
    cpuNode("c", { ramTotal: 20 * GiB }),
    cpuNode("d", { ramTotal: 5 * GiB }),
  ];
  const r = placeAcross(cpuReq(40), nodes, 40);
  assert(r.ok);
  // b + c (50 GB) hold 40 GB: two nodes, though a third would spread it thinner.
  assertEquals(r.members.map((m) => [m.node, m.role, m.layers]), [
    ["b", "head", 24],
    ["c", "worker", 16],
  ]);
  assertEquals(r.members.reduce((a, m) => a + (m.layers ?? 0), 0), 40);
  for (const m of r.members) assert(m.bytes <= m.room, `${m.node} holds no more than its room`);
  const byNode = Object.fromEntries(r.considered.map((v) => [v.node, v.reason]));
  assert(byNode.a!.startsWith("not needed"), byNode.a);
  const text = explainAcross("every node is smaller", r);
  assert(text.includes("no single node holds 40.0 GB"), text);
  assert(/b\s+part\s+head: 24 layer\(s\), 24.0 GB of its 30.0 GB free/.test(text), text);
});

Deno.test("placeAcross: three nodes when two are not enough; refused with the sum when all are not", () => {
  const nodes = [8, 8, 8].map((g, i) => cpuNode(`n${i}`, { ramTotal: g * GiB }));
  const three = placeAcross(cpuReq(20), nodes, 12);
  assert(three.ok);
  assertEquals(three.members.map((m) => m.layers), [4, 4, 4]);
  const none = placeAcross(cpuReq(30), nodes, 12);
  assert(!none.ok);
  assertEquals(none.reason, "needs 30.0 GB; the 3 roomiest nodes offer 24.0 GB together");
});

Deno.test("placeAcross: nodes refused for other reasons stay refused; room held by replicas counts", () => {
  const busy = cpuNode("busy", {
    ramTotal: 16 * GiB,
    replicas: [{
      replicaId: "x",
      model: "o",
      gpus: [],
      perCardBytes: 0,
      ramBytes: 12 * GiB,
      cores: 1,
    }],
  });
  const nodes = [
    cpuNode("ok", { ramTotal: 8 * GiB }),
    cpuNode("down", { ramTotal: 64 * GiB, state: "lost" }),
    cpuNode("other", { ramTotal: 64 * GiB, engines: ["llamacpp"] }),
    busy,
  ];
  const r = placeAcross(cpuReq(10), nodes, 8);
  assert(r.ok);
  assertEquals(r.members.map((m) => m.node), ["ok", "busy"]);
  const by = Object.fromEntries(r.considered.map((v) => [v.node, v.constraint]));
  assertEquals([by.down, by.other], ["state", "engine"]);
});

Deno.test("placeAcross: a pipeline set takes the same cards on each node (tensor parallel inside)", () => {
  const nodes = [gpuNode("g1", [24, 24]), gpuNode("g2", [24, 24, 24])];
  const req: PlacementRequest = {
    model: "huge",
    engine: "vllm",
    gpus: 2,
    perCardBytes: 40 * GiB,
    ramBytes: 2 * GiB,
    cores: 1,
    nodeSelector: {},
    tensorParallel: true,
    kvHeads: 8,
  };
  const r = placeAcross(req, nodes, 32);
  assert(r.ok);
  assertEquals(r.members.map((m) => [m.node, m.gpus.length, m.layers]), [
    ["g1", 2, 16],
    ["g2", 2, 16],
  ]);
  for (const m of r.members) assert(m.bytes <= 0.9 * 24 * GiB, "each card holds its share");
});
