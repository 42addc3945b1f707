/**
 * Picks how this node's GPUs are read: NVML when its library loads, else nvidia-smi when it is
 * installed, else "no NVIDIA GPU". A library that is present but cannot be used is not "no GPU":
 * when nvidia-smi is missing too, that failure is the report's error.
 */
import { which } from "../../core/which.ts";
import type { GpuOptions } from "./gpu_settings.ts";
import { type GpuProbe, NoGpuProbe } from "./gpu_probe.ts";
import { openNvml } from "./nvml_library.ts";
import { NvmlProbe } from "./nvml_probe.ts";
import { SmiProbe } from "./smi_probe.ts";

export async function openGpuProbe(opts: GpuOptions): Promise<GpuProbe> {
  const nvml = openNvml(opts.nvmlLibrary);
  if (nvml.kind === "ok") return new NvmlProbe(nvml.lib);
  const smi = await which(opts.nvidiaSmi);
  if (smi) return new SmiProbe(smi);
  if (nvml.kind === "unusable") {
    return new NoGpuProbe(`the NVML library ${opts.nvmlLibrary} cannot be used: ${nvml.why}`);
  }
  return new NoGpuProbe();
}
