import { assert, assertEquals } from "../../tests/assert.ts";
import { fixture, fixtureAbsent } from "../../tests/helpers/fixtures.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { readGgufFile } from "../../core/gguf/read_gguf_file.ts";
import { GiB } from "./memory_estimate.ts";
import { type PlanCatalog, planModel } from "./plan.ts";
import { parseModel } from "./model_yaml.ts";
import { cpuNode, gpuNode } from "./testdata/cluster.ts";

const empty: PlanCatalog = { names: new Set(), configNames: new Set() };
const gguf = (name: string, gb: number) => ({
  source: `/srv/${name}`,
  files: [{ name, bytes: gb * GiB }],
  facts: { layers: 32, kvHeads: 8, headDim: 128, trainedContext: 131072 },
});

Deno.test({
  name: "plan: the tiny llama fixture, read from its header, on one card" +
    skipNote(fixtureAbsent("tiny-random-llama.gguf")),
  ignore: !fixture("tiny-random-llama.gguf"),
}, async () => {
  const path = fixture("tiny-random-llama.gguf")!;
  const { facts } = await readGgufFile(path);
  const plan = planModel(
    {
      source: path,
      files: [{ name: "tiny-random-llama.gguf" }],
      facts: {
        weightsBytes: facts.tensorBytes!,
        layers: facts.layers!,
        kvHeads: facts.kvHeads!,
        headDim: facts.headDim!,
        trainedContext: facts.trainedContext!,
      },
    },
    { nodes: [gpuNode("g", [24]), cpuNode("c")] },
    empty,
  );
  assertEquals(plan.refusals, []);
  assertEquals([plan.ok, plan.engine, plan.name, plan.context], [
    true,
    "llamacpp",
    "tiny-random-llama",
    2048,
  ]);
  const best = plan.layouts[0]!;
  assertEquals([best.device, best.gpus, best.nodes, best.freeNow], ["gpu", 1, ["g"], ["g"]]);
  // 2 × 2 layers × 4 KV heads × 16 × 2 bytes × (2048 × 4 slots)
  assertEquals(best.perCard!.context, 2 * 2 * 4 * 16 * 2 * 2048 * 4);
  assertEquals(best.perCard!.weights, facts.tensorBytes);
  assertEquals(plan.warnings, []);
  const def = parseModel(plan.entry);
  assertEquals([def.contextLength, def.trainedContext, def.profiles[0]!.gpus], [2048, 2048, 1]);
});

Deno.test("plan: engine by file type; anything else is refused by name", () => {
  const nodes = { nodes: [gpuNode("g", [80])] };
  const st = planModel(
    {
      source: "hf:org/model",
      files: [
        { name: "config.json", bytes: 1000 },
        { name: "model-00001-of-00002.safetensors", bytes: 8 * GiB },
        { name: "model-00002-of-00002.safetensors", bytes: 7 * GiB },
      ],
      facts: { layers: 32, kvHeads: 8, headDim: 128 },
    },
    nodes,
    empty,
  );
  assertEquals([st.ok, st.engine, st.layouts[0]!.gpus], [true, "vllm", 1]);
  assertEquals(st.estimate!.weights, 15 * GiB);
  const onnx = planModel({ source: "/m.onnx", files: [{ name: "m.onnx" }] }, nodes, empty);
  assertEquals(onnx.refusals, [{
    code: "no_engine_reads",
    message: "nothing here reads .onnx files",
  }]);
  const bin = planModel({ source: "/m.bin", files: [{ name: "pytorch_model.bin" }] }, nodes, empty);
  assert(bin.refusals[0]!.message.startsWith("nothing here reads .bin files (a pickle"));
  const split = planModel(
    {
      source: "hf:org/m-gguf",
      files: [{ name: "m-00001-of-00002.gguf" }, { name: "m-00002-of-00002.gguf" }],
    },
    nodes,
    empty,
  );
  assertEquals(split.refusals[0]!.code, "several_files");
});

Deno.test("plan: a name taken, or declared in server.yaml, is refused", () => {
  const cat = { names: new Set(["m", "y"]), configNames: new Set(["y"]) };
  const nodes = { nodes: [gpuNode("g", [80])] };
  const a = planModel(gguf("m.gguf", 1), nodes, cat);
  assertEquals(a.refusals[0]!.code, "name_taken");
  const b = planModel(gguf("m.gguf", 1), nodes, cat, { name: "y" });
  assertEquals(b.refusals[0]!.message, "'y' is declared in server.yaml: edit it there");
  assert(planModel(gguf("m.gguf", 1), nodes, cat, { name: "z" }).ok);
});

Deno.test("plan: a CPU-only fleet runs a GGUF on the CPU, and says when it is too small", () => {
  const plan = planModel(
    { ...gguf("m.gguf", 4.7), facts: {} },
    { nodes: [cpuNode("c", { ramTotal: 7.9 * GiB })] },
    empty,
  );
  assert(plan.ok);
  const codes = plan.warnings.map((w) => w.code);
  assertEquals(codes, ["gpu_engine_without_gpu", "node_too_small", "estimate_guessed"]);
  assert(plan.warnings[1]!.message.includes("7.9 GB of memory, less than the"));
  assertEquals(plan.layouts.map((l) => l.device), ["cpu"]);
  assert(plan.entry!.profiles![0]!.memory_gb! >= 4.7 * 1.5 + 2, "memory filled in, never blank");
  const vllm = planModel(
    { source: "hf:o/m", files: [{ name: "m.safetensors", bytes: GiB }] },
    { nodes: [cpuNode("c")] },
    empty,
  );
  assertEquals(vllm.refusals[0]!.message, "vllm needs a GPU and no node has one");
  assertEquals(vllm.warnings[0]!.code, "engine_not_installed");
});

Deno.test("plan: the context pool shrinks to what fits, and says to what", () => {
  const plan = planModel(gguf("m.gguf", 16), { nodes: [gpuNode("g", [24])] }, empty, {
    context: 131072,
    slots: 1,
  });
  assert(plan.ok, JSON.stringify(plan.refusals));
  assertEquals(plan.warnings[0]!.code, "context_shrunk");
  // 21.6 GB usable − 16 GB − 0.5 GB = 5.1 GB at 128 KB a token → 41,728 in 256-token steps
  assertEquals(plan.context, 41728);
  assert(plan.warnings[0]!.message.includes("from 131072 to 41728 tokens"));
  assertEquals(plan.layouts[0]!.gpus, 1);
});

Deno.test("plan: weights that fit no card are refused; more cards are offered when they fit", () => {
  const two = planModel(gguf("m.gguf", 30), { nodes: [gpuNode("g", [24, 24])] }, empty);
  assertEquals(two.layouts.map((l) => l.gpus), [2]);
  const none = planModel(gguf("m.gguf", 300), {
    nodes: [gpuNode("g", [24, 24], { ramTotal: 64 * GiB })],
  }, empty);
  assertEquals(none.refusals[0]!.code, "fits_no_card");
  assert(none.refusals[0]!.message.includes("fit no card: the largest offers 21.6 GB usable"));
  const tp = planModel(
    {
      source: "hf:o/m",
      files: [{ name: "m.safetensors", bytes: 60 * GiB }],
      facts: { layers: 32, kvHeads: 8, headDim: 128 },
    },
    { nodes: [gpuNode("g", [24, 24, 24, 24, 24, 24])] },
    empty,
  );
  assertEquals(tp.layouts.map((l) => l.gpus), [4], "3 and 5 and 6 do not split 8 KV heads");
});

Deno.test("plan: an embedding GGUF is served for embedding: 32 slots of 1,024", () => {
  const plan = planModel(
    { ...gguf("e.gguf", 0.01), facts: { pooling: "mean", trainedContext: 512 } },
    { nodes: [cpuNode("c")] },
    empty,
  );
  assertEquals([plan.embeddings, plan.context, plan.slots], [true, 512, 32]);
  assertEquals(plan.entry!.capabilities, ["embeddings"]);
});

Deno.test("plan: a GGUF no node holds is split across the fewest CPU nodes, layers per node", () => {
  const nodes = [6, 6, 2].map((g, i) => cpuNode(`c${i + 1}`, { ramTotal: g * GiB }));
  const plan = planModel(gguf("m.gguf", 4.7), { nodes }, empty);
  assert(plan.ok, JSON.stringify(plan.refusals));
  const [l] = plan.layouts;
  assertEquals(l!.split!.map((m) => [m.node, m.role, m.layers]), [
    ["c1", "head", 16],
    ["c2", "worker", 16],
  ]);
  const w = plan.warnings.find((x) => x.code === "split_across_nodes")!;
  assert(w.message.includes("split across 2 nodes, c1 (head) 16 layer(s)"), w.message);
  assert(!plan.warnings.some((x) => x.code === "node_too_small"));
});

Deno.test("plan: vLLM over nodes is tensor parallel inside each node and pipeline across", () => {
  const nodes = [gpuNode("g1", [24, 24]), gpuNode("g2", [24, 24])];
  const src = {
    source: "hf:o/huge",
    files: [{ name: "model.safetensors", bytes: 70 * GiB }],
    facts: { layers: 80, kvHeads: 8, headDim: 128, trainedContext: 8192 },
  };
  const plan = planModel(src, { nodes }, empty);
  assert(plan.ok, JSON.stringify(plan.refusals));
  const [l] = plan.layouts;
  assertEquals([l!.gpus, l!.split!.map((m) => [m.node, m.layers])], [2, [["g1", 40], ["g2", 40]]]);
});
