/** What `llmgw bench` prints: plain tables for people; `--json` prints the result objects instead. */
import { errorCount, type LoadResult } from "./load.ts";
import type { OverheadReport, ScenarioResult } from "./overhead.ts";
import type { Summary } from "./percentiles.ts";

/** Right-aligned columns under a header row. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

const ms = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined || Number.isNaN(v) ? "-" : v.toFixed(digits);
const signed = (v: number | null | undefined) =>
  v === null || v === undefined ? "-" : `${v >= 0 ? "+" : ""}${v.toFixed(2)}`;

function errorsText(r: LoadResult): string {
  const kinds = Object.entries(r.errors);
  return kinds.length === 0 ? "none" : kinds.map(([k, n]) => `${k} ${n}`).join(", ");
}

function summaryRows(name: string, s: Summary | null): string[] {
  return s
    ? [name, ms(s.p50), ms(s.p95), ms(s.p99), ms(s.min), ms(s.mean), ms(s.max)]
    : [name, "-", "-", "-", "-", "-", "-"];
}

export function formatLoad(r: LoadResult, target: string): string {
  const lines = [
    `llmgw bench: ${target}, ${r.concurrency} concurrent, ${
      r.stream ? "streamed" : "not streamed"
    }, max_tokens ${r.maxTokens}, prompt ~${r.promptTokens} tokens`,
    ``,
    `requests:    ${r.requests} in ${r.elapsedS.toFixed(2)} s, ${r.ok} ok, ${errorCount(r)} failed`,
    `throughput:  ${r.requestsPerSecond.toFixed(1)} requests/s, ${r.tokensPerSecond.toFixed(1)} ${
      r.stream ? "streamed " : ""
    }tokens/s (${r.tokensFrom === "usage" ? "from usage" : "counted as content events"})`,
    `errors:      ${errorsText(r)}`,
  ];
  for (const [kind, why] of Object.entries(r.errorSamples)) lines.push(`  ${kind}: ${why}`);
  lines.push(
    ``,
    table(["ms", "p50", "p95", "p99", "min", "mean", "max"], [
      ...(r.stream ? [summaryRows("time to first token", r.ttftMs)] : []),
      summaryRows("total latency", r.latencyMs),
    ]),
  );
  return lines.join("\n");
}

function scenarioTitle(s: ScenarioResult): string {
  return s.stream
    ? `Streamed, ${s.maxTokens} tokens per answer, engines at ${s.tokensPerSecond} tokens/s per stream`
    : `Not streamed, ${s.maxTokens} tokens per answer, engines at ${s.tokensPerSecond} tokens/s`;
}

export function formatScenario(s: ScenarioResult): string {
  const header = [
    "concurrency",
    "direct p50/p99",
    "gateway p50/p99",
    "added p50/p99",
    ...(s.stream ? ["TTFT p50 direct/gw", "TTFT added"] : []),
    "gw req/s",
    "gw CPU ms/req",
    "gw CPU % (idle)",
    "gw RSS MB",
    "errors d/g",
  ];
  const rows = s.levels.map((l) => [
    String(l.concurrency),
    `${ms(l.direct.latencyMs?.p50)} / ${ms(l.direct.latencyMs?.p99)}`,
    `${ms(l.gateway.latencyMs?.p50)} / ${ms(l.gateway.latencyMs?.p99)}`,
    `${signed(l.addedP50Ms)} / ${signed(l.addedP99Ms)}`,
    ...(s.stream
      ? [`${ms(l.direct.ttftMs?.p50)} / ${ms(l.gateway.ttftMs?.p50)}`, signed(l.ttftAddedP50Ms)]
      : []),
    l.gateway.requestsPerSecond.toFixed(0),
    ms(l.gatewayCpuMsPerRequest, 3),
    `${l.gatewayCpuPercent.toFixed(0)} (${l.gatewayIdleCpuPercent.toFixed(1)})`,
    String(l.gatewayRssPeakMb),
    `${errorCount(l.direct)}/${errorCount(l.gateway)}`,
  ]);
  const notes = s.levels.flatMap((l) =>
    [["direct", l.direct], ["gateway", l.gateway]].flatMap(([leg, r]) =>
      Object.entries((r as LoadResult).errorSamples).map(([k, why]) =>
        `  c=${l.concurrency} ${leg} ${k}: ${why}`
      )
    )
  );
  return [
    `${scenarioTitle(s)} (latencies in ms; gateway idle RSS ${s.gatewayIdleRssMb} MB)`,
    table(header, rows),
    ...notes,
  ].join("\n");
}

export interface TargetCheck {
  target: string;
  measured: string;
  met: boolean;
}

/** Issue 3's targets, judged on the levels that were run (a level not run is not judged). */
export function checkTargets(r: OverheadReport): TargetCheck[] {
  const out: TargetCheck[] = [];
  const plain = r.scenarios.find((s) => !s.stream)?.levels.find((l) => l.concurrency === 1);
  if (plain && plain.addedP50Ms !== null && plain.addedP99Ms !== null) {
    out.push({
      target: "not streamed, concurrency 1: added latency ≤ 0.5 ms p50",
      measured: `${signed(plain.addedP50Ms)} ms`,
      met: plain.addedP50Ms <= 0.5,
    });
    out.push({
      target: "not streamed, concurrency 1: added latency ≤ 1.5 ms p99",
      measured: `${signed(plain.addedP99Ms)} ms`,
      met: plain.addedP99Ms <= 1.5,
    });
  }
  const stream = r.scenarios.find((s) => s.stream && s.maxTokens === 64);
  const s128 = stream?.levels.find((l) => l.concurrency === 128);
  if (s128 && s128.gatewayCpuMsPerRequest !== null) {
    out.push({
      target: "64-token streams, 128 concurrent: gateway CPU ≤ 1.0 ms per request",
      measured: `${ms(s128.gatewayCpuMsPerRequest, 3)} ms`,
      met: s128.gatewayCpuMsPerRequest <= 1.0,
    });
  }
  if (s128 && s128.ttftAddedP50Ms !== null) {
    out.push({
      target: "64-token streams, 128 concurrent: TTFT p50 within 5 ms of direct",
      measured: `${signed(s128.ttftAddedP50Ms)} ms`,
      met: s128.ttftAddedP50Ms <= 5,
    });
  }
  const s512 = r.scenarios.find((s) => s.stream)?.levels.find((l) => l.concurrency === 512);
  if (s512) {
    const errs = errorCount(s512.gateway);
    out.push({
      target: "512 concurrent streams: no error",
      measured: `${errs} failed of ${s512.gateway.requests}`,
      met: errs === 0 && s512.gateway.ok > 0,
    });
    out.push({
      target: "512 concurrent streams: gateway resident memory ≤ 200 MB",
      measured: `${s512.gatewayRssPeakMb} MB peak`,
      met: s512.gatewayRssPeakMb <= 200,
    });
  }
  return out;
}

export function formatOverhead(r: OverheadReport): string {
  const m = r.machine;
  const load = (a: number[]) => a.map((x) => x.toFixed(2)).join(" ");
  const lines = [
    `llmgw bench overhead: ${m.cpus} CPUs (${m.cpuModel ?? "unknown model"}), ${
      m.memoryMb ?? "?"
    } MB, ${m.os} ${m.kernel}, deno ${m.deno}`,
    `load average before ${load(m.loadAvgBefore)}, after ${load(m.loadAvgAfter)}; ${
      r.settings.durationMs / 1000
    } s per leg in ${r.settings.rounds} interleaved rounds after ${
      r.settings.warmupMs / 1000
    } s warm-up; ${r.settings.slots} engine slots`,
    `gateway: llmgw up (API key checked, usage recorded); CPU and memory from /proc/<pid> of the gateway process${
      r.gatewayPidIsGateway ? "" : " (WARNING: the pid could not be confirmed as llmgw up)"
    }`,
  ];
  for (const s of r.scenarios) lines.push("", formatScenario(s));
  const checks = checkTargets(r);
  if (checks.length) {
    lines.push("", "Targets (issue 3):");
    for (const c of checks) {
      lines.push(`  ${c.met ? "met   " : "MISSED"}  ${c.target}: ${c.measured}`);
    }
  }
  return lines.join("\n");
}
