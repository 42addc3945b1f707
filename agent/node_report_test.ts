import { assertEquals } from "../tests/assert.ts";
import type { GpuReport, HostInfo } from "../core/protocol/host_report.ts";
import { builtinAdapters } from "./engines/builtin_adapters.ts";
import {
  compareCapability,
  type EngineStatus,
  installedEngines,
  nodeProblems,
} from "./node_report.ts";

const host: HostInfo = { os: "linux", disks: [], cpuFlags: ["avx2"] };
const all: EngineStatus[] = [
  { name: "llamacpp", detection: { installed: true, binary: "/b/llama-server" } },
  { name: "vllm", detection: { installed: true, binary: "/b/vllm", version: "0.10.1" } },
  { name: "sim", detection: { installed: true, binary: "/deno", version: "0.1.0" } },
];
const card = (cc: string) => ({
  index: 0,
  uuid: "GPU-1",
  name: "x",
  computeCapability: cc,
  processes: [],
});

Deno.test("node problems: old cards, broken drivers, and nothing when all is well", () => {
  const pascal: GpuReport = { source: "nvml", gpus: [card("6.1")] };
  assertEquals(nodeProblems(builtinAdapters, all, host, pascal), [
    "vllm: needs compute capability 7.0 or newer; the newest card here is 6.1",
  ]);
  const ada: GpuReport = { source: "nvml", gpus: [card("6.1"), card("8.9")] };
  assertEquals(nodeProblems(builtinAdapters, all, host, ada), []);
  const broken: GpuReport = { source: "nvml", gpus: [], error: "NVML could not start: mismatch" };
  assertEquals(nodeProblems(builtinAdapters, all, host, broken), [
    "GPU engines: the NVIDIA driver is broken: NVML could not start: mismatch",
    "vllm: installed, but there is no GPU to run it on",
  ]);
  assertEquals(installedEngines(all.slice(0, 2)), [
    { name: "llamacpp", binary: "/b/llama-server" },
    { name: "vllm", binary: "/b/vllm", version: "0.10.1" },
  ]);
  assertEquals(compareCapability("8.10", "8.9") > 0, true);
});
