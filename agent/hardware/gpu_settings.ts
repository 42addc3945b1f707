/**
 * Where the agent looks for the NVIDIA driver's pieces. Part of the agent's settings (agent.yaml
 * `gpu:`); `llmgw doctor` reads the same. Tests point LLMGW_NVML_LIBRARY at the stub library built
 * by testdata/build_stub_nvml.ts, and LLMGW_NVIDIA_SMI at a stub script.
 */
import { int, text } from "../../core/settings.ts";

export const gpuSettings = {
  nvmlLibrary: text(
    "gpu.nvml_library",
    "libnvidia-ml.so.1",
    "NVML library to load for GPU figures (a name on the loader's path, or a file)",
    { env: "LLMGW_NVML_LIBRARY" },
  ),
  nvidiaSmi: text(
    "gpu.nvidia_smi",
    "nvidia-smi",
    "nvidia-smi to run when NVML cannot be loaded (a name on PATH, or a file)",
    { env: "LLMGW_NVIDIA_SMI" },
  ),
  sampleIntervalMs: int(
    "gpu.sample_interval_ms",
    2_000,
    "How often the GPUs are read (NVML stays open between reads)",
    { min: 250, max: 600_000 },
  ),
};

export interface GpuOptions {
  readonly nvmlLibrary: string;
  readonly nvidiaSmi: string;
}
