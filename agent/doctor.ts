/**
 * `llmgw doctor`: what this node's agent would report (host, GPUs and where their figures come
 * from, engines and versions) and what keeps each engine from running here. Reads the agent's own
 * settings (DATA/agent.yaml, flags, environment), so it looks where the agent looks. Works with no
 * control plane and no credential.
 */
import { type Command, parseStrict } from "../core/command.ts";
import type { GpuReport, HostInfo } from "../core/protocol/host_report.ts";
import { parseArgsOptions, settingsHelp } from "../core/settings.ts";
import { agentLocation, agentSettings, loadAgentConfig, settingText } from "./agent_config.ts";
import { traitsOf } from "../core/engines/engine_traits.ts";
import { builtinAdapters } from "./engines/builtin_adapters.ts";
import { readHostInfo } from "./hardware/host_info.ts";
import { ownRunAsProblems } from "./run_as_capabilities.ts";
import { openGpuProbe } from "./hardware/open_gpu_probe.ts";
import { detectEngines, type EngineStatus, installedEngines, nodeProblems } from "./node_report.ts";

const help = `Usage: llmgw doctor [--json] [options]

Prints what this node's agent would report to the control plane: host, GPUs (and whether the
figures come from NVML or nvidia-smi), engines installed with their versions, and what is missing
for each engine. Uses the agent's settings (DATA/agent.yaml, flags, environment).

Options:
  --json                       Print one JSON object instead of text
${settingsHelp({ ...agentLocation, ...agentSettings })}
  --help                       Show this help
`;

export interface DoctorReport {
  readonly host: HostInfo;
  readonly gpu: GpuReport;
  readonly engines: ReturnType<typeof installedEngines>;
  readonly missing: string[];
}

export const doctorCommand: Command = {
  name: "doctor",
  summary: "Show what this node would report (host, GPUs, engines) and what each engine lacks",
  async run(argv) {
    const parsed = parseStrict("llmgw doctor", argv, {
      ...parseArgsOptions({ ...agentLocation, ...agentSettings }),
      json: { type: "boolean" },
      help: { type: "boolean" },
    });
    if (parsed.values.help) {
      console.log(help);
      return 0;
    }
    const { json: _, help: __, ...flags } = parsed.values;
    const c = await loadAgentConfig({ flags, env: Deno.env.toObject() });
    const host = readHostInfo({
      weightsDir: c.weightsDir || `${c.dataDir}/weights`,
      enginesDir: `${c.dataDir}/engines`,
    });
    const probe = await openGpuProbe({ nvmlLibrary: c.nvmlLibrary, nvidiaSmi: c.nvidiaSmi });
    const gpu = await probe.sample();
    await probe.close();
    const binaries = Object.fromEntries(
      Object.keys(builtinAdapters).map((name) => {
        const setting = traitsOf(name)?.binarySetting;
        return [name, setting ? settingText(c, setting) : undefined];
      }),
    );
    const statuses = await detectEngines(builtinAdapters, binaries);
    const report: DoctorReport = {
      host,
      gpu,
      engines: installedEngines(statuses),
      missing: [
        ...nodeProblems(builtinAdapters, statuses, host, gpu),
        ...ownRunAsProblems(c.engineRunAs),
      ],
    };
    console.log(
      parsed.values.json ? JSON.stringify(report, null, 2) : formatDoctor(report, statuses),
    );
    return 0;
  },
};

const GiB = 1024 ** 3;
const gib = (n: number | undefined) => (n === undefined ? "?" : `${(n / GiB).toFixed(1)} GiB`);

export function formatDoctor(r: DoctorReport, statuses: readonly EngineStatus[]): string {
  const h = r.host;
  const lines: string[] = ["Host"];
  lines.push(
    `  system    ${h.os} ${h.kernel ?? "(kernel unknown)"} ${h.arch ?? ""}, ${h.hostname ?? "?"}`,
  );
  const flags = h.cpuFlags === undefined ? "unknown" : h.cpuFlags.join(" ") || "none of interest";
  lines.push(
    `  cpu       ${h.cpuModel ?? "unknown model"}, ${h.cores ?? "?"} cores; flags: ${flags}`,
  );
  lines.push(`  memory    ${gib(h.ramTotalBytes)} total, ${gib(h.ramAvailableBytes)} available`);
  for (const d of h.disks) {
    lines.push(
      `  disk      ${d.purpose} ${d.path}: ${gib(d.freeBytes)} free of ${gib(d.totalBytes)}`,
    );
  }

  const g = r.gpu;
  const about = [
    `source: ${g.source}`,
    g.driverVersion ? `driver ${g.driverVersion}` : "",
    g.cudaVersion ? `CUDA ${g.cudaVersion}` : "",
  ].filter(Boolean).join(", ");
  lines.push("", `GPUs (${about})`);
  if (g.error) lines.push(`  ERROR: ${g.error}`);
  else if (g.gpus.length === 0) lines.push("  none: no NVIDIA GPU found");
  for (const card of g.gpus) {
    const parts = [
      `${gib(card.memoryTotalBytes)} (${gib(card.memoryFreeBytes)} free)`,
      card.utilizationPercent !== undefined ? `${card.utilizationPercent}% busy` : "",
      card.temperatureC !== undefined ? `${card.temperatureC} C` : "",
      card.powerDrawW !== undefined
        ? `${card.powerDrawW.toFixed(0)}/${card.powerLimitW?.toFixed(0) ?? "?"} W`
        : "",
      card.computeCapability ? `compute ${card.computeCapability}` : "",
      card.pcieMaxGen ? `PCIe Gen${card.pcieMaxGen} x${card.pcieMaxWidth ?? "?"}` : "",
      card.processes.length ? `${card.processes.length} processes` : "",
    ].filter(Boolean).join(", ");
    lines.push(`  ${card.index}  ${card.name}  ${card.uuid}`, `     ${parts}`);
  }
  for (const w of g.warnings ?? []) lines.push(`  warning: ${w}`);

  lines.push("", "Engines");
  for (const { name, detection: d } of statuses) {
    lines.push(
      d.installed
        ? `  ${name.padEnd(9)} ${d.version ?? "(version unknown)"}  ${d.binary}`
        : `  ${name.padEnd(9)} not installed: ${d.missing}`,
    );
  }
  lines.push("", r.missing.length ? "Missing" : "Nothing missing");
  for (const m of r.missing) lines.push(`  ${m}`);
  return lines.join("\n");
}
