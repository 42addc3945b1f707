/**
 * What a node can run: each engine found (with its version) and, for `llmgw doctor` and the
 * heartbeat's warnings, what stands in the way of each engine on this machine.
 */
import type { EngineInstalled, GpuReport, HostInfo } from "../core/protocol/host_report.ts";
import type { Detection, EngineAdapter } from "./engines/engine_adapter.ts";

export interface EngineStatus {
  readonly name: string;
  readonly detection: Detection;
}

/**
 * Detects every adapter's engine at once. `binaries` holds configured executables by engine name
 * (agent.yaml); an engine without one is searched on PATH. `vllm --version` takes seconds, so
 * call this at start and now and then, not per heartbeat.
 */
export function detectEngines(
  adapters: Readonly<Record<string, EngineAdapter>>,
  binaries: Readonly<Record<string, string | undefined>> = {},
): Promise<EngineStatus[]> {
  return Promise.all(
    Object.entries(adapters).map(async ([name, adapter]) => {
      const binary = binaries[name];
      const detection = await adapter.detect(binary ? { binary } : {});
      return { name, detection };
    }),
  );
}

/** The heartbeat's `engines`: installed ones only. */
export function installedEngines(statuses: readonly EngineStatus[]): EngineInstalled[] {
  return statuses.flatMap(({ name, detection: d }) =>
    d.installed ? [{ name, binary: d.binary, ...(d.version ? { version: d.version } : {}) }] : []
  );
}

/** Numeric comparison of "major.minor": "8.10" is newer than "8.9". */
export function compareCapability(a: string, b: string): number {
  const [am = 0, an = 0] = a.split(".").map(Number);
  const [bm = 0, bn = 0] = b.split(".").map(Number);
  return am !== bm ? am - bm : an - bn;
}

/**
 * One line per thing that keeps an engine from running here, in the operator's terms:
 * "vllm: not installed (vllm not on PATH)", "GPU engines: no NVIDIA GPU", and the like.
 */
export function nodeProblems(
  adapters: Readonly<Record<string, EngineAdapter>>,
  statuses: readonly EngineStatus[],
  host: HostInfo,
  gpu: GpuReport,
): string[] {
  const out: string[] = [];
  const noGpu = gpu.gpus.length === 0;
  const needGpu = Object.values(adapters).some((a) => a.requirements.gpu === "required");
  if (needGpu && noGpu) {
    out.push(
      gpu.error
        ? `GPU engines: the NVIDIA driver is broken: ${gpu.error}`
        : "GPU engines: no NVIDIA GPU",
    );
  }
  for (const { name, detection } of statuses) {
    const adapter = adapters[name];
    if (!detection.installed) {
      out.push(`${name}: not installed (${detection.missing})`);
      continue;
    }
    if (!adapter) continue;
    const req = adapter.requirements;
    if (req.gpu === "required" && noGpu) {
      out.push(`${name}: installed, but there is no GPU to run it on`);
    }
    const min = req.minComputeCapability;
    if (req.gpu !== "none" && min && !noGpu) {
      const caps = gpu.gpus.map((g) => g.computeCapability).filter((c): c is string => !!c);
      const best = caps.sort(compareCapability).at(-1);
      if (best && compareCapability(best, min) < 0) {
        out.push(
          `${name}: needs compute capability ${min} or newer; the newest card here is ${best}`,
        );
      }
    }
    const flags = req.cpuFlags ?? [];
    if (flags.length && host.cpuFlags) {
      const lacking = flags.filter((f) => !host.cpuFlags!.includes(f));
      if (lacking.length) out.push(`${name}: the CPU lacks ${lacking.join(", ")}`);
    }
  }
  return out;
}
