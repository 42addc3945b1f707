/**
 * The machine itself: OS, kernel, CPU model and the flags engine builds care about, cores, RAM,
 * and free disk where weights and engines are kept. Read from /proc and statfs; whatever cannot be
 * read is left out (a CPU flag list that could not be read is not "no AVX2").
 */
import { statfsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { DiskFree, HostInfo } from "../../core/protocol/host_report.ts";

/** The CPU flags that decide which engine builds run here (llama.cpp's CPU backends, AMX, ARM). */
export const cpuFlagsOfInterest = [
  "sse4_2",
  "avx",
  "avx2",
  "fma",
  "f16c",
  "avx_vnni",
  "avx512f",
  "avx512bw",
  "avx512vl",
  "avx512_vnni",
  "avx512_bf16",
  "avx512_fp16",
  "amx_tile",
  "amx_int8",
  "amx_bf16",
  "asimd",
  "asimddp",
  "i8mm",
  "sve",
  "sve2",
] as const;

export interface HostInfoOptions {
  readonly weightsDir?: string;
  readonly enginesDir?: string;
  /** For tests: where /proc/cpuinfo and /proc/meminfo are read. */
  readonly procRoot?: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export function readHostInfo(opts: HostInfoOptions = {}): HostInfo {
  const proc = opts.procRoot ?? "/proc";
  const info: Mutable<HostInfo> = { os: Deno.build.os, arch: Deno.build.arch, disks: [] };
  const kernel = attempt(() => Deno.osRelease());
  if (kernel) info.kernel = kernel;
  const hostname = attempt(() => Deno.hostname());
  if (hostname) info.hostname = hostname;
  const cpuinfo = attempt(() => Deno.readTextFileSync(`${proc}/cpuinfo`));
  if (cpuinfo !== undefined) Object.assign(info, parseCpuinfo(cpuinfo));
  const cores = navigator.hardwareConcurrency;
  if (Number.isInteger(cores) && cores > 0) info.cores = cores;
  const meminfo = attempt(() => Deno.readTextFileSync(`${proc}/meminfo`));
  if (meminfo !== undefined) Object.assign(info, parseMeminfo(meminfo));
  for (const [purpose, dir] of [["weights", opts.weightsDir], ["engines", opts.enginesDir]]) {
    if (!dir) continue;
    const disk = diskFree(purpose as DiskFree["purpose"], dir);
    if (disk) info.disks.push(disk);
  }
  return info;
}

/** Model name (x86 "model name", ARM "Model"/"Hardware") and the flags of interest. */
export function parseCpuinfo(text: string): Pick<HostInfo, "cpuModel" | "cpuFlags"> {
  const out: Mutable<Pick<HostInfo, "cpuModel" | "cpuFlags">> = {};
  const field = (name: string) => {
    const m = new RegExp(`^${name}\\s*:\\s*(.*)$`, "mi").exec(text);
    return m?.[1]?.trim();
  };
  const model = field("model name") ?? field("Model") ?? field("Hardware") ?? field("cpu model");
  if (model) out.cpuModel = model;
  const flags = field("flags") ?? field("Features");
  if (flags !== undefined) {
    const have = new Set(flags.split(/\s+/));
    out.cpuFlags = cpuFlagsOfInterest.filter((f) => have.has(f));
  }
  return out;
}

export function parseMeminfo(text: string): Pick<HostInfo, "ramTotalBytes" | "ramAvailableBytes"> {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s*(\\d+)\\s*kB`, "m").exec(text);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const out: Mutable<Pick<HostInfo, "ramTotalBytes" | "ramAvailableBytes">> = {};
  const total = kb("MemTotal");
  if (total) out.ramTotalBytes = total;
  const available = kb("MemAvailable");
  if (available !== undefined) out.ramAvailableBytes = available;
  return out;
}

/**
 * Free space for `dir`, measured on the nearest directory that exists: the weights directory is
 * created on first download, and until then its parent's filesystem is where it will be.
 */
export function diskFree(purpose: DiskFree["purpose"], dir: string): DiskFree | undefined {
  let at = resolve(dir);
  for (let i = 0; i < 64; i++) {
    try {
      const s = statfsSync(at);
      return {
        purpose,
        path: dir,
        freeBytes: Number(s.bavail) * Number(s.bsize),
        totalBytes: Number(s.blocks) * Number(s.bsize),
      };
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound) && (e as { code?: string }).code !== "ENOENT") {
        return undefined;
      }
      const up = dirname(at);
      if (up === at) return undefined;
      at = up;
    }
  }
  return undefined;
}

function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
