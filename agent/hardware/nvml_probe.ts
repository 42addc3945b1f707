/**
 * GPU figures straight from NVML, with the library kept open and initialised between samples (an
 * init costs tens of milliseconds and, on some drivers, wakes every card).
 *
 * A card is reported when its identity (UUID, name) can be read; every other figure is read on its
 * own and a failing one (NOT_SUPPORTED temperature on a datacentre card, no power reading on a
 * laptop part) only leaves that field absent. An init that fails is reported as an error with
 * NVML's own words and tried again at the next sample: a driver module loaded later is picked up.
 */
import type { GpuInfo, GpuProcess, GpuReport } from "../../core/protocol/host_report.ts";
import type { GpuProbe } from "./gpu_probe.ts";
import {
  NVML_DRIVER_VERSION_SIZE,
  NVML_ERROR_INSUFFICIENT_SIZE,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH,
  NVML_NAME_SIZE,
  NVML_PROCESS_INFO_SIZE,
  NVML_SUCCESS,
  NVML_UUID_SIZE,
  NVML_VALUE_NOT_AVAILABLE,
  type NvmlLibrary,
} from "./nvml_library.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** How long one sample may take before the driver is reported as not answering. */
const sampleTimeoutMs = 10_000;

export class NvmlProbe implements GpuProbe {
  readonly source = "nvml" as const;
  readonly #lib: NvmlLibrary;
  #initialised = false;
  #closed = false;
  #inFlight: Promise<GpuReport> | undefined;

  constructor(lib: NvmlLibrary) {
    this.#lib = lib;
  }

  /**
   * One reading of every card. A sample still running from before (a driver call that hangs) is
   * not stacked on: the caller gets an error report at once and the old call keeps its thread.
   */
  sample(): Promise<GpuReport> {
    if (this.#closed) return Promise.resolve(this.#failure("the GPU probe was closed"));
    if (this.#inFlight) {
      return Promise.resolve(this.#failure("NVML has not answered the previous sample yet"));
    }
    const run = this.#sample().finally(() => (this.#inFlight = undefined));
    this.#inFlight = run;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<GpuReport>((resolve) => {
      timer = setTimeout(
        () => resolve(this.#failure(`NVML did not answer within ${sampleTimeoutMs / 1000} s`)),
        sampleTimeoutMs,
      );
    });
    return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
  }

  /** Shuts NVML down and unloads it, after a sample in flight has finished with it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#inFlight?.catch(() => {});
    if (this.#initialised) await this.#lib.symbols.nvmlShutdown();
    this.#initialised = false;
    this.#lib.close();
  }

  #failure(error: string): GpuReport {
    return { source: "nvml", gpus: [], error };
  }

  #errorText(code: number): string {
    const fn = this.#lib.symbols.nvmlErrorString;
    const ptr = fn ? fn(code) : null;
    const text = ptr ? Deno.UnsafePointerView.getCString(ptr) : "unknown error";
    return `${text} (NVML error ${code})`;
  }

  async #sample(): Promise<GpuReport> {
    const s = this.#lib.symbols;
    if (!this.#initialised) {
      const rc = await s.nvmlInit_v2();
      if (rc !== NVML_SUCCESS) {
        const hint = rc === NVML_ERROR_LIB_RM_VERSION_MISMATCH
          ? "; the driver was updated without a reboot (or reload of the nvidia module)"
          : "";
        return this.#failure(`NVML could not start: ${this.#errorText(rc)}${hint}`);
      }
      this.#initialised = true;
    }
    const report: Mutable<GpuReport> = { source: "nvml", gpus: [] };
    const warnings: string[] = [];

    const driver = await readString(
      (buf) => s.nvmlSystemGetDriverVersion?.(buf, buf.length),
      NVML_DRIVER_VERSION_SIZE,
    );
    if (driver) report.driverVersion = driver;
    const cuda = await readI32((buf) => s.nvmlSystemGetCudaDriverVersion_v2?.(buf));
    if (cuda !== undefined && cuda > 0) {
      report.cudaVersion = `${Math.floor(cuda / 1000)}.${Math.floor((cuda % 1000) / 10)}`;
    }

    const countBuf = new Uint32Array(1);
    const rc = await s.nvmlDeviceGetCount_v2(countBuf);
    if (rc !== NVML_SUCCESS) {
      return { ...report, error: `NVML could not count the cards: ${this.#errorText(rc)}` };
    }
    for (let index = 0; index < (countBuf[0] ?? 0); index++) {
      const card = await this.#readCard(index);
      if (typeof card === "string") warnings.push(card);
      else report.gpus.push(card);
    }
    if (warnings.length) report.warnings = warnings;
    return report;
  }

  /** The card, or why it was left out. */
  async #readCard(index: number): Promise<GpuInfo | string> {
    const s = this.#lib.symbols;
    const handleBuf = new BigUint64Array(1);
    const rc = await s.nvmlDeviceGetHandleByIndex_v2(index, handleBuf);
    if (rc !== NVML_SUCCESS) return `card ${index} left out: ${this.#errorText(rc)}`;
    const dev = Deno.UnsafePointer.create(handleBuf[0] ?? 0n);
    const uuid = await readString((b) => s.nvmlDeviceGetUUID?.(dev, b, b.length), NVML_UUID_SIZE);
    const name = await readString((b) => s.nvmlDeviceGetName?.(dev, b, b.length), NVML_NAME_SIZE);
    if (!uuid || name === undefined) {
      return `card ${index} left out: NVML did not give its ${uuid ? "name" : "UUID"}`;
    }
    const card: Mutable<GpuInfo> = { index, uuid, name, processes: [] };

    const mem = new BigUint64Array(3); // total, free, used
    if ((await s.nvmlDeviceGetMemoryInfo?.(dev, mem)) === NVML_SUCCESS) {
      card.memoryTotalBytes = Number(mem[0]);
      card.memoryFreeBytes = Number(mem[1]);
      card.memoryUsedBytes = Number(mem[2]);
    }
    const util = new Uint32Array(2); // gpu, memory
    if ((await s.nvmlDeviceGetUtilizationRates?.(dev, util)) === NVML_SUCCESS) {
      card.utilizationPercent = util[0] ?? 0;
    }
    const temp = await readU32((b) => s.nvmlDeviceGetTemperature?.(dev, 0, b));
    if (temp !== undefined) card.temperatureC = temp;
    const power = await readU32((b) => s.nvmlDeviceGetPowerUsage?.(dev, b));
    if (power !== undefined) card.powerDrawW = power / 1000;
    const limit = (await readU32((b) => s.nvmlDeviceGetEnforcedPowerLimit?.(dev, b))) ??
      (await readU32((b) => s.nvmlDeviceGetPowerManagementLimit?.(dev, b)));
    if (limit !== undefined) card.powerLimitW = limit / 1000;
    const major = new Int32Array(1);
    const minor = new Int32Array(1);
    if ((await s.nvmlDeviceGetCudaComputeCapability?.(dev, major, minor)) === NVML_SUCCESS) {
      card.computeCapability = `${major[0]}.${minor[0]}`;
    }
    const gen = await readU32((b) => s.nvmlDeviceGetMaxPcieLinkGeneration?.(dev, b));
    if (gen) card.pcieMaxGen = gen;
    const width = await readU32((b) => s.nvmlDeviceGetMaxPcieLinkWidth?.(dev, b));
    if (width) card.pcieMaxWidth = width;
    card.processes = await this.#processes(dev);
    return card;
  }

  /**
   * Compute processes on the card. The list is sized by asking first; processes may start between
   * the two calls, so INSUFFICIENT_SIZE is retried with room to spare, a few times.
   */
  async #processes(dev: Deno.PointerValue): Promise<GpuProcess[]> {
    const s = this.#lib.symbols;
    const call = s.nvmlDeviceGetComputeRunningProcesses_v3 ??
      s.nvmlDeviceGetComputeRunningProcesses_v2;
    if (!call) return [];
    const count = new Uint32Array(1);
    let rc = await call(dev, count, null);
    for (let attempt = 0; attempt < 4; attempt++) {
      if (rc === NVML_SUCCESS && count[0] === 0) return [];
      if (rc !== NVML_SUCCESS && rc !== NVML_ERROR_INSUFFICIENT_SIZE) return [];
      const room = (count[0] ?? 0) + 8;
      const buf = new Uint8Array(room * NVML_PROCESS_INFO_SIZE);
      count[0] = room;
      rc = await call(dev, count, buf);
      if (rc === NVML_SUCCESS) return parseProcessInfos(buf, count[0] ?? 0);
    }
    return [];
  }
}

/** Reads `n` nvmlProcessInfo_t records (24 bytes each, little-endian). */
export function parseProcessInfos(buf: Uint8Array, n: number): GpuProcess[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: GpuProcess[] = [];
  for (let i = 0; i < n && (i + 1) * NVML_PROCESS_INFO_SIZE <= buf.byteLength; i++) {
    const at = i * NVML_PROCESS_INFO_SIZE;
    const pid = view.getUint32(at, true);
    const used = view.getBigUint64(at + 8, true);
    if (pid <= 0) continue;
    out.push(used === NVML_VALUE_NOT_AVAILABLE ? { pid } : { pid, usedMemoryBytes: Number(used) });
  }
  return out;
}

type Call<B> = (buf: B) => Promise<number> | undefined;

async function readString(call: Call<Uint8Array>, size: number): Promise<string | undefined> {
  const buf = new Uint8Array(size);
  if ((await call(buf)) !== NVML_SUCCESS) return undefined;
  const end = buf.indexOf(0);
  return new TextDecoder().decode(buf.subarray(0, end < 0 ? size : end)).trim();
}

async function readU32(call: Call<Uint32Array>): Promise<number | undefined> {
  const buf = new Uint32Array(1);
  return (await call(buf)) === NVML_SUCCESS ? buf[0] : undefined;
}

async function readI32(call: Call<Int32Array>): Promise<number | undefined> {
  const buf = new Int32Array(1);
  return (await call(buf)) === NVML_SUCCESS ? buf[0] : undefined;
}
