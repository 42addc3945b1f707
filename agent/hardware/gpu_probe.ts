/**
 * The GPU probe port: one reading of the node's NVIDIA cards per `sample()`. Real probes are NVML
 * (nvml_probe.ts) and nvidia-smi (smi_probe.ts); `FakeGpuProbe` serves tests of what consumes a
 * report (heartbeat, placement) without any library.
 */
import type { GpuReport } from "../../core/protocol/host_report.ts";

export interface GpuProbe {
  readonly source: GpuReport["source"];
  /** Never throws: trouble is the report's `error`. */
  sample(): Promise<GpuReport>;
  /** Releases the library; later samples report an error. */
  close(): Promise<void>;
}

/** A node without an NVIDIA driver: no cards, no error. */
export class NoGpuProbe implements GpuProbe {
  readonly source = "none" as const;
  constructor(private readonly error?: string) {}
  sample(): Promise<GpuReport> {
    return Promise.resolve({
      source: "none",
      gpus: [],
      ...(this.error !== undefined ? { error: this.error } : {}),
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Returns the reports given, in turn (the last one repeats), or whatever `next` computes. */
export class FakeGpuProbe implements GpuProbe {
  readonly source: GpuReport["source"];
  samples = 0;
  closed = false;
  readonly #next: () => GpuReport;

  constructor(reports: readonly GpuReport[] | (() => GpuReport)) {
    if (typeof reports === "function") {
      this.#next = reports;
      this.source = reports().source;
    } else {
      if (reports.length === 0) throw new RangeError("FakeGpuProbe needs at least one report");
      this.#next = () => reports[Math.min(this.samples - 1, reports.length - 1)]!;
      this.source = reports[0]!.source;
    }
  }

  sample(): Promise<GpuReport> {
    this.samples++;
    return Promise.resolve(structuredClone(this.#next()));
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
