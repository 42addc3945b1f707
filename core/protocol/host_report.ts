/**
 * The hardware part of a node's heartbeat: the machine, its NVIDIA cards, the engines installed.
 * The agent fills it (agent/hardware/, agent/engines/), `llmgw doctor` prints it, and the control
 * plane validates it on receipt with these same schemas.
 *
 * Rule for every field: a fact that was not read is ABSENT, never a made-up zero. A card whose
 * temperature sensor is not supported has no `temperatureC`; a placer that saw 0 would think it
 * cold. Sizes are bytes, as plain numbers (exact up to 8 PiB).
 *
 * Objects are not strict: a newer agent may send fields an older control plane does not know, and
 * those are dropped rather than refusing the node.
 */
import { z } from "zod";

const bytes = z.number().int().nonnegative();
const count = z.number().int().nonnegative();

/** Free space where the agent keeps something that grows: model weights, installed engines. */
export const diskFreeSchema = z.object({
  purpose: z.enum(["weights", "engines"]),
  path: z.string(),
  freeBytes: bytes,
  totalBytes: bytes.optional(),
});
export type DiskFree = z.infer<typeof diskFreeSchema>;

export const hostInfoSchema = z.object({
  /** `Deno.build.os`: "linux", "darwin", ... */
  os: z.string(),
  /** `Deno.build.arch`: "x86_64", "aarch64". */
  arch: z.string().optional(),
  /** Kernel release, e.g. "6.8.0-45-generic". */
  kernel: z.string().optional(),
  hostname: z.string().optional(),
  /** /proc/cpuinfo "model name". */
  cpuModel: z.string().optional(),
  /**
   * The CPU flags an engine build may need (avx, avx2, avx512f, fma, f16c, amx_*, neon, ...),
   * not the whole list. Absent when unread; [] when read and none of interest is present.
   */
  cpuFlags: z.array(z.string()).optional(),
  /** Logical CPUs this process may use. */
  cores: z.number().int().positive().optional(),
  ramTotalBytes: bytes.optional(),
  /** /proc/meminfo MemAvailable: what can be had without swapping. */
  ramAvailableBytes: bytes.optional(),
  disks: z.array(diskFreeSchema).default([]),
});
export type HostInfo = z.infer<typeof hostInfoSchema>;

/** A process using a card, and the replica it belongs to when the agent can tell. */
export const gpuProcessSchema = z.object({
  pid: z.number().int().positive(),
  /** Absent when the driver does not say (NVML reports "not available" under some setups). */
  usedMemoryBytes: bytes.optional(),
  replicaId: z.string().optional(),
});
export type GpuProcess = z.infer<typeof gpuProcessSchema>;

export const gpuInfoSchema = z.object({
  /** The driver's index: what CUDA_VISIBLE_DEVICES takes (with CUDA_DEVICE_ORDER=PCI_BUS_ID). */
  index: count,
  /** "GPU-…": stable across reboots and re-slotting, unlike the index. */
  uuid: z.string().min(1),
  name: z.string(),
  memoryTotalBytes: bytes.optional(),
  memoryUsedBytes: bytes.optional(),
  memoryFreeBytes: bytes.optional(),
  /** Share of the last sample period in which any kernel ran; not SM occupancy. */
  utilizationPercent: z.number().min(0).max(100).optional(),
  temperatureC: z.number().optional(),
  powerDrawW: z.number().nonnegative().optional(),
  /** The enforced limit (what the card is held to now), not the board's maximum. */
  powerLimitW: z.number().nonnegative().optional(),
  /** "major.minor", e.g. "8.9". */
  computeCapability: z.string().regex(/^\d+\.\d+$/).optional(),
  /** The fastest generation card and slot allow together; not the current one, which idles low. */
  pcieMaxGen: z.number().int().positive().optional(),
  pcieMaxWidth: z.number().int().positive().optional(),
  processes: z.array(gpuProcessSchema).default([]),
});
export type GpuInfo = z.infer<typeof gpuInfoSchema>;

export const gpuReportSchema = z.object({
  /** Where the figures came from; "none" with no `error` means "this node has no NVIDIA GPU". */
  source: z.enum(["nvml", "nvidia-smi", "none"]),
  driverVersion: z.string().optional(),
  /** The highest CUDA version the driver supports, "12.4". */
  cudaVersion: z.string().optional(),
  gpus: z.array(gpuInfoSchema),
  /**
   * The driver is there but does not work (init failed, driver/library mismatch, nvidia-smi
   * failing). A node with a broken driver is not a CPU node: the operator must be told.
   */
  error: z.string().optional(),
  /** Lesser trouble: a card left out because its identity could not be read, and the like. */
  warnings: z.array(z.string()).optional(),
});
export type GpuReport = z.infer<typeof gpuReportSchema>;

export const engineInstalledSchema = z.object({
  /** Adapter name: "llamacpp", "vllm", "sim". */
  name: z.string(),
  /** The executable found (an absolute path), or the agent itself for built-in engines. */
  binary: z.string(),
  /** As the engine prints it; absent when `--version` did not answer in time or said nothing. */
  version: z.string().optional(),
});
export type EngineInstalled = z.infer<typeof engineInstalledSchema>;

/** Everything hardware-ish one heartbeat carries; replicas and load travel beside it. */
export const hostReportSchema = z.object({
  host: hostInfoSchema,
  gpu: gpuReportSchema,
  engines: z.array(engineInstalledSchema),
});
export type HostReport = z.infer<typeof hostReportSchema>;
