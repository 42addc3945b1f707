import { assert, assertEquals } from "../../tests/assert.ts";
import { fixture, fixtureAbsent } from "../../tests/helpers/fixtures.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { readGgufFile } from "../../core/gguf/read_gguf_file.ts";
import { explainModel } from "./explain_model.ts";
import { changeGpus } from "./gpus_change.ts";
import { changeResources } from "./resources_change.ts";
import { factsFromGguf, replicaNeed } from "./replica_need.ts";
import { cpuNode, gpuNode } from "./testdata/cluster.ts";
import { model, World } from "./testdata/world.ts";

Deno.test("explain: every profile, every node, as data and text", () => {
  const m = model("m", 30, {}, { node_selector: { zone: "x" } });
  const nodes = [
    gpuNode("a", [48], { labels: { zone: "x" } }),
    gpuNode("b", [48], { labels: { zone: "y" } }),
    gpuNode("c", [16], { labels: { zone: "x" } }),
  ];
  const [e] = explainModel(m, { nodes }, []).profiles;
  assert(e!.result.ok && e!.result.node === "a");
  assertEquals(e!.result.considered.map((v) => v.constraint), [undefined, "labels", "card_memory"]);
  assert(e!.text.includes("label zone=y (selector asks x)"), e!.text);
  // A replica the table started but no agent reported yet still takes its room.
  const w = new World(nodes, [m]);
  w.step();
  const after = explainModel(m, { nodes }, w.replicas);
  const [again] = after.profiles;
  assert(!again!.result.ok);
  assertEquals(again!.result.considered[0]!.constraint, "card_memory");
  // The replica that fills node a is explained as running there, not as "no node fits".
  assertEquals(after.replicas.length, 1);
  const [r] = after.replicas;
  assertEquals([r!.node, r!.verdict?.ok, r!.gpus], ["a", true, [0]]);
  assert(/^replica \S+ on a \(\w+\): card\(s\) 0 × /.test(r!.text), r!.text);
  assert(r!.text.includes("the node still fits it on card(s) 0"), r!.text);
  assert(again!.text.startsWith("a new replica: m:"), again!.text);
});

Deno.test("profiles: the higher priority first, the next when it fits nowhere", () => {
  const m = model("m", 4, {}, { priority: 1 });
  m.def.profiles.push({
    engine: "llamacpp",
    args: [],
    gpus: 0,
    nodeSelector: {},
    weight: 1,
    priority: 0,
  });
  const cpuOnly = new World([cpuNode("c")], [m]);
  const [c] = cpuOnly.step().commands;
  assert(c?.kind === "start");
  assertEquals([c.node, c.profile, c.gpus], ["c", 1, []]);
  const withGpu = new World([cpuNode("c"), gpuNode("g", [24])], [m]);
  const [g] = withGpu.step().commands;
  assert(g?.kind === "start");
  assertEquals([g.node, g.profile], ["g", 0]);
});

Deno.test("gpus: tensor-parallel width, counts no node has, cards too small", () => {
  const v = model("v", 40, {}, { engine: "vllm" });
  v.facts.kvHeads = 8;
  const snap = { nodes: [gpuNode("a", [24, 24, 24, 24])] };
  assertEquals(changeGpus(v, 3, snap), {
    ok: false,
    message: "3 cards cannot split 8 KV heads: the width must divide them or be a multiple of them",
  });
  const eight = changeGpus(v, 8, snap);
  assert(!eight.ok && eight.message === "no node has 8 cards (the most on one node is 4)");
  const one = changeGpus(v, 1, snap);
  assert(!one.ok && one.message.startsWith("1 card(s) need"), one.ok ? "" : one.message);
  const four = changeGpus(v, 4, snap);
  assert(four.ok);
  assertEquals(four.model.def.profiles[0]!.gpus, 4);
  assertEquals(v.def.profiles[0]!.gpus, 1, "the input is not changed");
  const l = changeGpus(model("l", 40), 3, snap);
  assert(l.ok, "llama.cpp splits layers over any count");
});

Deno.test("resources: refused with figures when no node that could run it has the cores or memory", () => {
  const m = model("m", 4);
  const snap = { nodes: [gpuNode("a", [24], { cpuCores: 8 }), cpuNode("c", { cpuCores: 64 })] };
  assertEquals(changeResources(m, { cores: 16 }, snap), {
    ok: false,
    message: "no node has 16 cores (the most on one node is 8)",
  }, "the CPU node's cores do not count for a one-card profile");
  assertEquals(changeResources(m, { memoryGb: 100 }, snap), {
    ok: false,
    message: "no node has 100.0 GB of memory (the most on one node is 64.0 GB)",
  });
  assertEquals(changeResources(m, {}, snap), {
    ok: false,
    message: "give --memory GB and/or --cores N",
  });
  const r = changeResources(m, { cores: 8, memoryGb: 3 }, snap);
  assert(r.ok);
  assertEquals([r.model.def.profiles[0]!.cores, r.model.def.profiles[0]!.memoryGb], [8, 3]);
  assertEquals(m.def.profiles[0]!.cores, undefined, "the input is not changed");
  assert(
    changeResources(m, { cores: 512 }, { nodes: [] }).ok,
    "no node known: nothing to judge by",
  );
});

Deno.test("sim: a file's weights fill a card as a real engine's would", () => {
  const m = model("s", 12, {}, { engine: "sim" });
  const need = replicaNeed(m, m.def.profiles[0]!);
  assertEquals(need.perCard.total, 12 * 1024 ** 3 + 64 * 1024 ** 2);
  assertEquals(need.estimate.context, 0, "it keeps no KV cache");
  const w = new World([gpuNode("g", [24])], [m, model("t", 12, {}, { engine: "sim" })]);
  const starts = w.step().commands.filter((c) => c.kind === "start");
  assertEquals(starts.map((c) => c.model), ["s"], "only one fits the card");
});

Deno.test({
  name: "facts from a real GGUF header size a replica" +
    skipNote(fixtureAbsent("tiny-random-llama.gguf")),
  ignore: !fixture("tiny-random-llama.gguf"),
}, async () => {
  const path = fixture("tiny-random-llama.gguf")!;
  const { facts } = await readGgufFile(path);
  const m = model("tiny", 0);
  m.facts = factsFromGguf(facts);
  assertEquals(m.facts.layers, 2);
  const need = replicaNeed(m, m.def.profiles[0]!);
  assertEquals(need.estimate.weights, facts.tensorBytes);
  assertEquals(need.estimate.context, 2 * 2 * 4 * 16 * 2 * 2048);
  assertEquals(need.estimate.guessed, []);
});
