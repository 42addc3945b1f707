import { assert, assertEquals } from "../../tests/assert.ts";
import { cardRoom } from "./cluster_snapshot.ts";
import { GiB } from "./memory_estimate.ts";
import { explainText, place, type PlacementRequest, tensorParallelProblem } from "./placement.ts";
import { cpuNode, gpuNode } from "./testdata/cluster.ts";

const req = (over: Partial<PlacementRequest> = {}): PlacementRequest => ({
  model: "m",
  engine: "vllm",
  gpus: 1,
  perCardBytes: 20 * GiB,
  ramBytes: 8 * GiB,
  cores: 2,
  nodeSelector: {},
  tensorParallel: true,
  kvHeads: 8,
  ...over,
});

Deno.test("placement: lands on the node that fits; explain names every rejection", () => {
  const nodes = [
    gpuNode("small", [16]),
    gpuNode("big", [48]),
    gpuNode("down", [80], { state: "lost" }),
    gpuNode("cordoned", [80], { cordoned: true }),
    gpuNode("nollm", [80], { engines: ["llamacpp"] }),
    gpuNode("old", [80], { cc: 7.0 }),
    cpuNode("cpu"),
  ];
  const r = place(req({ minComputeCapability: 8.0 }), nodes);
  assert(r.ok);
  assertEquals([r.node, r.gpus], ["big", [0]]);
  const by = Object.fromEntries(r.considered.map((v) => [v.node, v.constraint]));
  assertEquals(by, {
    small: "card_memory",
    big: undefined,
    down: "state",
    cordoned: "state",
    nollm: "engine",
    old: "compute",
    cpu: "engine",
  });
  const text = explainText(req(), r);
  assert(text.includes("big") && /big\s+chosen/.test(text), text);
  assert(/small\s+rejected\s+\(card_memory\) needs 1 card\(s\) with 20.0 GB free/.test(text), text);
  assert(text.includes("(engine) vllm is not installed (has llamacpp)"), text);
  assert(text.includes("(state) the node is lost"), text);
});

Deno.test("placement: a two-card model takes two cards of one node", () => {
  const nodes = [gpuNode("one-card", [80]), gpuNode("quad", [24, 24, 24, 24])];
  const r = place(req({ gpus: 2, perCardBytes: 20 * GiB }), nodes);
  assert(r.ok);
  assertEquals([r.node, r.gpus.length], ["quad", 2]);
  assertEquals(r.considered[0]!.reason, "has 1 card(s), needs 2");
});

Deno.test("placement: a role-labelled node takes only its role", () => {
  const judge = gpuNode("judge", [80], { labels: { "llmgw.role": "judge" } });
  const plain = gpuNode("plain", [24]);
  const chat = place(req(), [judge, plain]);
  assert(chat.ok && chat.node === "plain");
  assertEquals(chat.considered[0]!.reason, "the node is for role 'judge' only");
  const asks = place(req({ nodeSelector: { "llmgw.role": "judge" } }), [judge, plain]);
  assert(asks.ok && asks.node === "judge");
  assertEquals(asks.considered[1]!.reason, "no label llmgw.role (selector asks llmgw.role=judge)");
});

Deno.test("placement: pack before spreading; weights present win; RAM and cores", () => {
  const a = gpuNode("a", [48, 48]);
  a.replicas.push({
    replicaId: "s1",
    model: "x",
    gpus: [1],
    perCardBytes: 20 * GiB,
    ramBytes: 0,
    cores: 0,
  });
  const r = place(req(), [a]);
  assert(r.ok);
  assertEquals(r.gpus, [1], "the fuller card that still fits");
  const b = gpuNode("b", [48], { weights: ["hf:m"] });
  const w = place(req({ weightsKey: "hf:m" }), [a, b]);
  assert(w.ok && w.node === "b");
  const tight = gpuNode("tight", [48], { ramTotal: 4 * GiB });
  const busy = gpuNode("busy", [48], { cpuCores: 1 });
  const rr = place(req(), [tight, busy]);
  assert(!rr.ok);
  assertEquals(rr.considered.map((v) => v.constraint), ["ram", "cores"]);
});

Deno.test("placement: 90% of a card usable; foreign use and reservations both count", () => {
  const n = gpuNode("n", [20]);
  const g = n.gpus[0]!;
  assertEquals(cardRoom(n, g), 18 * GiB);
  g.memoryFree = 16 * GiB; // 4 GB used by something that is not ours
  assertEquals(cardRoom(n, g), 14 * GiB);
  n.replicas.push({
    replicaId: "s",
    model: "x",
    gpus: [0],
    perCardBytes: 7 * GiB,
    ramBytes: 0,
    cores: 0,
  });
  assertEquals(cardRoom(n, g), 11 * GiB, "a replica still loading: its reservation counts");
  g.memoryFree = 9 * GiB; // loaded: the driver now sees it too
  assertEquals(cardRoom(n, g), 7 * GiB);
  assertEquals(cardRoom(n, g, new Set(["s"])), 14 * GiB, "ignoring a replica gives its room back");
});

Deno.test("placement: tensor-parallel width divides the KV heads or is a multiple", () => {
  for (const ok of [1, 2, 4, 8, 16]) assertEquals(tensorParallelProblem(ok, 8), undefined);
  for (const bad of [3, 12]) assert(tensorParallelProblem(bad, 8));
  assertEquals(tensorParallelProblem(8, 4), undefined, "Qwen3-235B: 4 KV heads on 8 cards");
  const r = place(req({ gpus: 3 }), [gpuNode("a", [80, 80, 80, 80])]);
  assert(!r.ok);
  assert(r.reason.includes("cannot split 8 KV heads"));
  assert(explainText(req({ gpus: 3 }), r).includes("refused: 3 cards cannot split"));
  const layers = place(req({ gpus: 3, engine: "llamacpp", tensorParallel: false }), [
    gpuNode("a", [80, 80, 80, 80]),
  ]);
  assert(layers.ok, "llama.cpp splits layers, any count");
});

Deno.test("placement: a CPU replica is judged on RAM and cores only", () => {
  const r = place(req({ engine: "llamacpp", gpus: 0, tensorParallel: false }), [
    cpuNode("c1", { ramTotal: 4 * GiB }),
    cpuNode("c2"),
  ]);
  assert(r.ok && r.node === "c2" && r.gpus.length === 0);
});
