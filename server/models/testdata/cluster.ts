/** Synthetic nodes for tests: `gpuNode("a", [24, 24])` is a ready node with two 24 GB cards. */
import type { GpuView, NodeView } from "../cluster_snapshot.ts";
import { GiB } from "../memory_estimate.ts";

export function gpuNode(
  name: string,
  cardsGb: number[],
  extra: Partial<NodeView> & { cc?: number } = {},
): NodeView {
  const { cc, ...rest } = extra;
  const gpus: GpuView[] = cardsGb.map((gb, index) => ({
    index,
    memoryTotal: gb * GiB,
    memoryFree: gb * GiB,
    computeCapability: cc ?? 8.9,
  }));
  return {
    name,
    state: "ready",
    cordoned: false,
    labels: {},
    engines: ["llamacpp", "vllm", "sim"],
    cpuCores: 16,
    ramTotal: 64 * GiB,
    gpus,
    weights: [],
    replicas: [],
    ...rest,
  };
}

export function cpuNode(name: string, extra: Partial<NodeView> = {}): NodeView {
  return gpuNode(name, [], { engines: ["llamacpp", "sim"], ...extra });
}
