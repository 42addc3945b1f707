/**
 * The commands of a replica over several nodes, per engine: llama.cpp's head (`--rpc`, `-ngl`,
 * `-ts`) and worker (`rpc-server` on loopback with the memory placement gave it), vLLM's pipeline
 * ranks (TP inside a node × PP across nodes, multiprocessing backend, `--headless` workers; no GPU
 * here, so the commands are what is tested), and the sim playing both sides.
 */
import { assertEquals, assertThrows } from "../../tests/assert.ts";
import { builtinAdapters } from "./builtin_adapters.ts";
import type { PlanInput } from "./engine_adapter.ts";
import { rpcBufferLines } from "./llamacpp.ts";
import { prepareReplica } from "../replica.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";

const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  model: "m",
  modelPath: "/w/m.gguf",
  args: [],
  allowFlags: [],
  host: "127.0.0.1",
  port: 30001,
  apiKey: "k",
  ...over,
});
const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

Deno.test("llama.cpp head: its workers are RPC devices; -ngl offloads their layers, -ts splits them", () => {
  const one = builtinAdapters.llamacpp.plan(input({
    profile: {
      gpuLayers: 0,
      set: { role: "head", layers: 5, workers: [{ address: "127.0.0.1:40001", layers: 3 }] },
    },
  })).args;
  assertEquals([after(one, "--rpc"), after(one, "-ngl"), one.includes("-ts")], [
    "127.0.0.1:40001",
    "3",
    false,
  ]);
  const two = builtinAdapters.llamacpp.plan(input({
    profile: {
      gpuLayers: 0,
      set: {
        role: "head",
        layers: 4,
        workers: [{ address: "127.0.0.1:1", layers: 3 }, { address: "127.0.0.1:2", layers: 1 }],
      },
    },
  })).args;
  assertEquals([after(two, "--rpc"), after(two, "-ngl"), after(two, "-ts")], [
    "127.0.0.1:1,127.0.0.1:2",
    "4",
    "3,1",
  ]);
  // A head with cards: its own cards are the first device and take the head's layers.
  const gpu = builtinAdapters.llamacpp.plan(input({
    profile: {
      gpuLayers: 999,
      set: { role: "head", layers: 20, workers: [{ address: "127.0.0.1:1", layers: 12 }] },
    },
  })).args;
  assertEquals([after(gpu, "-ngl"), after(gpu, "-ts")], ["999", "20,12"]);
});

Deno.test("llama.cpp worker: rpc-server on loopback only, offering what placement gave it", () => {
  const worker = builtinAdapters.llamacpp.worker!;
  const plan = worker.plan(input({
    host: "0.0.0.0",
    binary: "/opt/rpc-server",
    profile: { set: { role: "worker", memoryBytes: 3 * 1024 ** 3 } },
  }));
  assertEquals([plan.cmd, ...plan.args], [
    "/opt/rpc-server",
    "-H",
    "127.0.0.1",
    "-p",
    "30001",
    "-m",
    "3072",
  ]);
  assertEquals(plan.env, {}, "rpc-server takes no key: only the tunnel reaches it");
  assertEquals(worker.probe, "tcp");
  assertEquals(
    rpcBufferLines(
      "x\nload_tensors: RPC[127.0.0.1:40001] model buffer size =     0.16 MiB\nCPU_Mapped model buffer\n",
    ),
    ["load_tensors: RPC[127.0.0.1:40001] model buffer size =     0.16 MiB"],
  );
});

Deno.test("vLLM over nodes: TP per node, PP across, one rank per node, the others headless", () => {
  const set = { nodes: 2, master: "gpu-a:29500" } as const;
  const head = builtinAdapters.vllm.plan(input({
    modelPath: "/w/llama-70b",
    profile: { tensorParallel: 4, set: { ...set, role: "head", rank: 0 } },
  })).args;
  const worker = builtinAdapters.vllm.worker!.plan(input({
    modelPath: "/w/llama-70b",
    profile: { tensorParallel: 4, set: { ...set, role: "worker", rank: 1 } },
  })).args;
  for (const [args, rank] of [[head, "0"], [worker, "1"]] as const) {
    assertEquals(
      ["--tensor-parallel-size", "--pipeline-parallel-size", "--nnodes", "--node-rank"].map((f) =>
        after(args, f)
      ),
      ["4", "2", "2", rank],
    );
    assertEquals([after(args, "--master-addr"), after(args, "--master-port")], ["gpu-a", "29500"]);
    assertEquals(after(args, "--distributed-executor-backend"), "mp");
  }
  assertEquals([head.includes("--headless"), worker.includes("--headless")], [false, true]);
  assertEquals(builtinAdapters.vllm.worker!.probe, "running", "a headless rank has no port");
});

Deno.test("sim: the head names its workers; the worker listens on a bare port", () => {
  const head = builtinAdapters.sim.plan(input({
    profile: { set: { role: "head", workers: [{ address: "127.0.0.1:40001" }] } },
  })).args;
  assertEquals(after(head, "--rpc"), "127.0.0.1:40001");
  const worker = builtinAdapters.sim.worker!.plan(input()).args;
  assertEquals(worker.slice(-4), ["sim-engine", "--worker", "--port", "30001"].slice(-4));
});

Deno.test("the supervisor runs a worker's side, and refuses a worker of an engine without one", () => {
  const spec = (engine: string) => ({
    replicaId: "s1.w1",
    model: "m",
    engine,
    modelPath: "/w/m.gguf",
    apiKey: "k".repeat(16),
    profile: { set: { role: "worker" as const, memoryBytes: 1024 ** 3 } },
  });
  const r = prepareReplica(spec("llamacpp"), builtinAdapters, "/tmp/x", 0, () => 30002);
  assertEquals(r.plan.cmd, "rpc-server");
  const { worker: _, ...alone } = builtinAdapters.llamacpp;
  const noWorker = { ...builtinAdapters, llamacpp: alone };
  assertThrows(
    () => prepareReplica(spec("llamacpp"), noWorker, "/tmp/x", 0, () => 30002),
    LaunchPlanError,
    "cannot be a worker",
  );
});
