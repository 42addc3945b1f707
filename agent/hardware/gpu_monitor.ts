/**
 * Samples a GpuProbe on an interval and keeps the latest report, so a heartbeat reads the cards
 * without waiting on the driver. Samples never overlap: the next is scheduled after one ends.
 */
import type { GpuReport } from "../../core/protocol/host_report.ts";
import type { GpuProbe } from "./gpu_probe.ts";

export class GpuMonitor {
  readonly #probe: GpuProbe;
  readonly #intervalMs: number;
  #latest: GpuReport | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(probe: GpuProbe, intervalMs: number) {
    this.#probe = probe;
    this.#intervalMs = intervalMs;
  }

  /** Takes the first sample (so `latest()` has one when this resolves), then keeps sampling. */
  async start(): Promise<void> {
    await this.#tick();
  }

  /** The newest report; before the first sample ends, "no reading yet" as an error. */
  latest(): GpuReport {
    return this.#latest ??
      { source: this.#probe.source, gpus: [], error: "the GPUs have not been read yet" };
  }

  /** Samples now, outside the schedule (e.g. right after an engine started). */
  async refresh(): Promise<GpuReport> {
    await (this.#running ?? this.#tick());
    return this.latest();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await this.#probe.close();
  }

  #tick(): Promise<void> {
    clearTimeout(this.#timer);
    this.#running = (async () => {
      try {
        this.#latest = await this.#probe.sample();
      } catch (e) {
        this.#latest = { source: this.#probe.source, gpus: [], error: String(e) };
      }
    })().finally(() => {
      this.#running = undefined;
      if (!this.#stopped) this.#timer = setTimeout(() => this.#tick(), this.#intervalMs);
    });
    return this.#running;
  }
}
