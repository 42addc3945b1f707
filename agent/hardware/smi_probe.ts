/**
 * GPU figures from `nvidia-smi`, for nodes where NVML cannot be loaded by this process (a library
 * outside the loader's path, a container with only the tool mounted).
 *
 * A driver that does not know one field refuses the whole query, so the fields every driver knows
 * are asked first and alone: they decide whether the node has cards. The rest are asked together
 * and, if that is refused, one by one; a field this driver refused is not asked again (a driver
 * does not learn fields while running).
 */
import type { GpuReport } from "../../core/protocol/host_report.ts";
import type { GpuProbe } from "./gpu_probe.ts";
import { type RunCommand, runCommand } from "../run_command.ts";
import {
  applyOptionalRows,
  isUnknownFieldError,
  type OptionalField,
  optionalGpuFields,
  parseComputeApps,
  parseRequiredRows,
  requiredGpuFields,
} from "./smi_parse.ts";

const csv = "--format=csv,noheader,nounits";

export class SmiProbe implements GpuProbe {
  readonly source = "nvidia-smi" as const;
  readonly #binary: string;
  readonly #run: RunCommand;
  /** Fields this driver refused; never asked again. */
  readonly #refused = new Set<string>();
  #cudaVersion: string | undefined | null = null;

  constructor(binary: string, run: RunCommand = runCommand()) {
    this.#binary = binary;
    this.#run = run;
  }

  async sample(): Promise<GpuReport> {
    const required = await this.#run(this.#binary, [
      `--query-gpu=${requiredGpuFields.join(",")}`,
      csv,
    ]);
    if (!required.ok) {
      const said = required.output.trim().split("\n").slice(-2).join(" ").slice(0, 300);
      return { source: this.source, gpus: [], error: `nvidia-smi failed: ${said || "no output"}` };
    }
    const gpus = parseRequiredRows(required.output);
    const report: { -readonly [K in keyof GpuReport]: GpuReport[K] } = {
      source: this.source,
      gpus,
    };
    if (gpus.length === 0) return report;

    await this.#optional(gpus);
    const driver = await this.#driverVersion();
    if (driver) report.driverVersion = driver;
    const cuda = await this.#cuda();
    if (cuda) report.cudaVersion = cuda;

    const apps = await this.#run(this.#binary, [
      "--query-compute-apps=pid,used_memory,gpu_uuid",
      csv,
    ]);
    if (apps.ok) {
      const byUuid = parseComputeApps(apps.output);
      for (const card of gpus) card.processes.push(...(byUuid.get(card.uuid) ?? []));
    }
    return report;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  async #optional(gpus: GpuReport["gpus"]): Promise<void> {
    const fields = optionalGpuFields.filter((f) => !this.#refused.has(f.field));
    if (fields.length === 0) return;
    if ((await this.#query(gpus, fields)) === "ok") return;
    for (const f of fields) {
      if ((await this.#query(gpus, [f])) === "refused") this.#refused.add(f.field);
    }
  }

  /** "refused" only when nvidia-smi said the field is unknown; a timeout is held against no one. */
  async #query(
    gpus: GpuReport["gpus"],
    fields: readonly OptionalField[],
  ): Promise<"ok" | "refused" | "failed"> {
    const names = fields.map((f) => f.field).join(",");
    const res = await this.#run(this.#binary, [`--query-gpu=index,${names}`, csv]);
    if (res.ok) {
      applyOptionalRows(gpus, fields, res.output);
      return "ok";
    }
    return isUnknownFieldError(res.output) ? "refused" : "failed";
  }

  async #driverVersion(): Promise<string | undefined> {
    const res = await this.#run(this.#binary, ["--query-gpu=driver_version", csv]);
    const first = res.ok ? res.output.trim().split("\n")[0]?.trim() : undefined;
    return first && !first.startsWith("[") && first !== "N/A" ? first : undefined;
  }

  /** "CUDA Version: 12.4" from the plain report's header; asked once, it needs a driver reload. */
  async #cuda(): Promise<string | undefined> {
    if (this.#cudaVersion !== null) return this.#cudaVersion;
    const res = await this.#run(this.#binary, []);
    this.#cudaVersion = res.ok ? /CUDA Version:\s*(\d+\.\d+)/.exec(res.output)?.[1] : undefined;
    return this.#cudaVersion;
  }
}
