/**
 * The slice of NVML (libnvidia-ml.so.1) the agent calls, bound through Deno.dlopen. Calls are
 * `nonblocking` (run on a worker thread): a wedged driver can hold an NVML call for many seconds,
 * and on the main thread that would also stop the heartbeat, making a node with a sick card look
 * lost instead of sick.
 *
 * Only init, count and handle are required; every other symbol is optional so that an older
 * driver's library, which lacks some, still reports its cards.
 */

export const NVML_SUCCESS = 0;
export const NVML_ERROR_INSUFFICIENT_SIZE = 7;
export const NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18;
/** What NVML puts in a 64-bit field it cannot fill (process memory under some setups). */
export const NVML_VALUE_NOT_AVAILABLE = 0xffff_ffff_ffff_ffffn;

/** Buffer sizes from nvml.h (the _V2 sizes, which fit the older ones too). */
export const NVML_DRIVER_VERSION_SIZE = 80;
export const NVML_UUID_SIZE = 96;
export const NVML_NAME_SIZE = 96;
/** nvmlProcessInfo_t as the _v2/_v3 process calls fill it: u32 pid, pad, u64 memory, u32, u32. */
export const NVML_PROCESS_INFO_SIZE = 24;

const async = { nonblocking: true } as const;
const opt = { nonblocking: true, optional: true } as const;

export const nvmlSymbols = {
  nvmlInit_v2: { parameters: [], result: "i32", ...async },
  nvmlShutdown: { parameters: [], result: "i32", ...async },
  nvmlErrorString: { parameters: ["i32"], result: "pointer", optional: true },
  nvmlSystemGetDriverVersion: { parameters: ["buffer", "u32"], result: "i32", ...opt },
  nvmlSystemGetCudaDriverVersion_v2: { parameters: ["buffer"], result: "i32", ...opt },
  nvmlDeviceGetCount_v2: { parameters: ["buffer"], result: "i32", ...async },
  nvmlDeviceGetHandleByIndex_v2: { parameters: ["u32", "buffer"], result: "i32", ...async },
  nvmlDeviceGetUUID: { parameters: ["pointer", "buffer", "u32"], result: "i32", ...opt },
  nvmlDeviceGetName: { parameters: ["pointer", "buffer", "u32"], result: "i32", ...opt },
  nvmlDeviceGetMemoryInfo: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetUtilizationRates: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetTemperature: { parameters: ["pointer", "i32", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetPowerUsage: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetEnforcedPowerLimit: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetPowerManagementLimit: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetCudaComputeCapability: {
    parameters: ["pointer", "buffer", "buffer"],
    result: "i32",
    ...opt,
  },
  nvmlDeviceGetMaxPcieLinkGeneration: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetMaxPcieLinkWidth: { parameters: ["pointer", "buffer"], result: "i32", ...opt },
  nvmlDeviceGetComputeRunningProcesses_v3: {
    parameters: ["pointer", "buffer", "buffer"],
    result: "i32",
    ...opt,
  },
  nvmlDeviceGetComputeRunningProcesses_v2: {
    parameters: ["pointer", "buffer", "buffer"],
    result: "i32",
    ...opt,
  },
} as const satisfies Deno.ForeignLibraryInterface;

export type NvmlLibrary = Deno.DynamicLibrary<typeof nvmlSymbols>;

export const defaultNvmlLibrary = "libnvidia-ml.so.1";

/** Opening the library: absent (no NVIDIA driver here) is not the same as present but unusable. */
export type NvmlOpen =
  | { readonly kind: "ok"; readonly lib: NvmlLibrary }
  | { readonly kind: "absent"; readonly why: string }
  | { readonly kind: "unusable"; readonly why: string };

export function openNvml(path = defaultNvmlLibrary): NvmlOpen {
  try {
    return { kind: "ok", lib: Deno.dlopen(path, nvmlSymbols) };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    // dlopen's own words for "no such library"; anything else (wrong architecture, a required
    // symbol missing, a broken install) means a driver is there but cannot be used.
    if (/No such file|cannot open shared object file: No such/i.test(why)) {
      return { kind: "absent", why };
    }
    return { kind: "unusable", why };
  }
}
