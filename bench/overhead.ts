/**
 * `llmgw bench overhead`: what the gateway adds. A sim engine runs alone (the direct leg) and a
 * gateway runs `llmgw up` with its own sim engine of the same settings (the gateway leg); the same
 * closed-loop load goes to each at every concurrency level, one after the other. The gateway's CPU
 * time and memory come from its own process's accounting in /proc, so the engine it starts (a
 * separate process) and the load generator are not charged to it.
 */
import { loopbackListeners } from "../server/setup/loopback_listeners.ts";
import { randomToken } from "../server/auth/secrets.ts";
import { type Child, startChild } from "./child.ts";
import { errorCount, type LoadResult, mergeResults, runLoad, withoutSamples } from "./load.ts";
import { clockTicks, readCpu, readMemory, RssSampler } from "./proc_stats.ts";

export interface ScenarioSpec {
  name: "plain" | "stream";
  stream: boolean;
  levels: number[];
  maxTokens: number;
  /** Speed of both sim engines in this scenario. */
  tokensPerSecond: number;
}

export interface OverheadOptions {
  scenarios: ScenarioSpec[];
  /** Measured time per leg (direct, gateway) at each level, in ms, split into `rounds`. */
  durationMs: number;
  /** Direct and gateway take turns this many times at each level. */
  rounds: number;
  /** Load before each measured leg, not counted: connections open, code warm. */
  warmupMs: number;
  promptTokens: number;
  /** Slots of both sim engines: requests generated at once, the rest wait in the engine's queue. */
  slots: number;
  timeoutMs: number;
  /** How long a child may take to start, in ms. */
  startTimeoutMs: number;
  /** A guardrail policy (the admin API's body) set on the gateway before any load. */
  guardPolicy?: unknown;
  signal?: AbortSignal | undefined;
  /** Called with one line per step, for a person watching. */
  progress?: (line: string) => void;
}

export interface LevelResult {
  concurrency: number;
  direct: Omit<LoadResult, "samples">;
  gateway: Omit<LoadResult, "samples">;
  /** Gateway minus direct total latency, ms; null when a leg had no successful request. */
  addedP50Ms: number | null;
  addedP99Ms: number | null;
  /** Gateway minus direct time to first token at p50, ms (streams only). */
  ttftAddedP50Ms: number | null;
  /** The gateway process's user + system CPU over its measured leg, per successful request. */
  gatewayCpuMsPerRequest: number | null;
  /** The same CPU time as a share of one core over the leg, in percent. */
  gatewayCpuPercent: number;
  /** The gateway's CPU share while idle (during the direct leg), in percent of one core. */
  gatewayIdleCpuPercent: number;
  /** Largest resident memory sampled during the gateway leg, and the process's lifetime peak. */
  gatewayRssPeakMb: number;
  gatewayHwmMb: number;
}

export interface ScenarioResult {
  name: ScenarioSpec["name"];
  stream: boolean;
  maxTokens: number;
  tokensPerSecond: number;
  levels: LevelResult[];
  /** The gateway's resident memory when idle, before any load. */
  gatewayIdleRssMb: number;
}

export interface MachineInfo {
  cpus: number;
  cpuModel: string | null;
  memoryMb: number | null;
  os: string;
  kernel: string;
  deno: string;
  clkTck: number;
  loadAvgBefore: number[];
  loadAvgAfter: number[];
  date: string;
}

export interface OverheadReport {
  machine: MachineInfo;
  settings: Omit<OverheadOptions, "signal" | "progress">;
  /** The spawned pid was checked to be `llmgw up` itself, not a wrapper around it. */
  gatewayPidIsGateway: boolean;
  scenarios: ScenarioResult[];
}

const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

export async function runOverhead(opts: OverheadOptions): Promise<OverheadReport> {
  const say = opts.progress ?? (() => {});
  const clkTck = await clockTicks();
  const loadAvgBefore = Deno.loadavg();
  const scenarios: ScenarioResult[] = [];
  let pidChecked = true;
  for (const spec of opts.scenarios) {
    if (opts.signal?.aborted) break;
    // A data directory per scenario: the store keeps the demo replica's launch (engine speed
    // included), so a second `up` on the first one's directory would run the first's engine.
    const dataDir = await Deno.makeTempDir({ prefix: "llmgw-bench-" });
    try {
      const { result, pidIsGateway } = await runScenario(spec, dataDir, clkTck, opts, say);
      pidChecked &&= pidIsGateway;
      scenarios.push(result);
    } finally {
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    }
  }
  const { signal: _s, progress: _p, ...settings } = opts;
  return {
    machine: await machineInfo(clkTck, loadAvgBefore),
    settings,
    gatewayPidIsGateway: pidChecked,
    scenarios,
  };
}

async function runScenario(
  spec: ScenarioSpec,
  dataDir: string,
  clkTck: number,
  opts: OverheadOptions,
  say: (line: string) => void,
): Promise<{ result: ScenarioResult; pidIsGateway: boolean }> {
  const tps = String(spec.tokensPerSecond);
  const slots = String(opts.slots);
  // The direct engine checks a key too, as the gateway's engine checks its per-replica key.
  const engineKey = randomToken("llmgw_bench_");
  const children: Child[] = [];
  try {
    say(`${spec.name}: starting a sim engine and a gateway (${tps} tokens/s, ${slots} slots)`);
    // Both start at once; each is a cold `deno run` that takes a second or two.
    const started = await Promise.allSettled([
      startChild(["sim-engine", "--tokens-per-second", tps, "--slots", slots], {
        readyWhen: /sim-engine listening on (\S+)/,
        timeoutMs: opts.startTimeoutMs,
        env: { LLAMA_API_KEY: engineKey },
      }),
      startChild([
        "up",
        "--data",
        dataDir,
        // Ports of their own: an appliance already running on this box keeps its defaults.
        ...loopbackListeners,
        "--engines-sim-tokens-per-second",
        tps,
        "--engines-sim-slots",
        slots,
        // All the load comes from one address: past 256 connections the cap would refuse it.
        "--listener-max-connections-per-address",
        "0",
        "--log-level",
        "warn",
      ], {
        readyWhen: /llmgw is up on (\S+)[\s\S]*?API key: (sk-llmgw-\S+)/,
        timeoutMs: opts.startTimeoutMs,
      }),
    ]);
    for (const s of started) if (s.status === "fulfilled") children.push(s.value);
    for (const s of started) if (s.status === "rejected") throw s.reason;
    const [engine, gateway] = children as [Child, Child];
    const pidIsGateway = await isLlmgwUp(gateway.pid);
    const engineUrl = `${engine.match[1]}/v1`;
    const gatewayUrl = `${gateway.match[1]}/v1`;
    const gatewayKey = gateway.match[2]!;
    await raiseLimits(gateway.match[1]!, dataDir);
    if (opts.guardPolicy !== undefined) {
      await setGuardPolicy(gateway.match[1]!, dataDir, opts.guardPolicy);
    }
    const idle = await readMemory(gateway.pid);

    const levels: LevelResult[] = [];
    for (const concurrency of spec.levels) {
      if (opts.signal?.aborted) break;
      const base = {
        model: "demo",
        concurrency,
        stream: spec.stream,
        maxTokens: spec.maxTokens,
        promptTokens: opts.promptTokens,
        timeoutMs: opts.timeoutMs,
        streamUsage: false,
        signal: opts.signal,
      };
      const directLoad = { ...base, url: engineUrl, key: engineKey };
      const gatewayLoad = { ...base, url: gatewayUrl, key: gatewayKey };
      if (opts.warmupMs > 0) {
        await runLoad({ ...directLoad, durationMs: opts.warmupMs });
        await runLoad({ ...gatewayLoad, durationMs: opts.warmupMs });
      }
      // Direct and gateway take turns in short rounds, so a change in the machine's load (other
      // work on a shared box) falls on both legs alike rather than on whichever ran second.
      // The gateway is idle during the direct rounds: what it spends then is its baseline
      // (timers, the engine's health checks), shown beside what the load costs it.
      const directRuns: LoadResult[] = [];
      const gatewayRuns: LoadResult[] = [];
      let idleMs = 0;
      let cpuMs = 0;
      const sampler = new RssSampler(gateway.pid);
      const slice = Math.max(1, Math.round(opts.durationMs / opts.rounds));
      for (let round = 0; round < opts.rounds && !opts.signal?.aborted; round++) {
        const idle0 = (await readCpu(gateway.pid, clkTck)).ms;
        directRuns.push(await runLoad({ ...directLoad, durationMs: slice }));
        const cpu0 = (await readCpu(gateway.pid, clkTck)).ms;
        idleMs += cpu0 - idle0;
        gatewayRuns.push(await runLoad({ ...gatewayLoad, durationMs: slice }));
        cpuMs += (await readCpu(gateway.pid, clkTck)).ms - cpu0;
      }
      const rssPeak = await sampler.stop();
      const { hwm } = await readMemory(gateway.pid);
      const direct = mergeResults(directRuns);
      const gatewayResult = mergeResults(gatewayRuns);
      say(`${spec.name} c=${concurrency}: direct   ${brief(direct)}`);
      const level: LevelResult = {
        concurrency,
        direct: withoutSamples(direct),
        gateway: withoutSamples(gatewayResult),
        addedP50Ms: diff(gatewayResult.latencyMs?.p50, direct.latencyMs?.p50),
        addedP99Ms: diff(gatewayResult.latencyMs?.p99, direct.latencyMs?.p99),
        ttftAddedP50Ms: diff(gatewayResult.ttftMs?.p50, direct.ttftMs?.p50),
        gatewayCpuMsPerRequest: gatewayResult.ok > 0 ? cpuMs / gatewayResult.ok : null,
        gatewayCpuPercent: (cpuMs / (gatewayResult.elapsedS * 1000)) * 100,
        gatewayIdleCpuPercent: (idleMs / (direct.elapsedS * 1000)) * 100,
        gatewayRssPeakMb: mb(rssPeak),
        gatewayHwmMb: mb(hwm),
      };
      say(
        `${spec.name} c=${concurrency}: gateway  ${brief(gatewayResult)}, cpu ${
          level.gatewayCpuMsPerRequest?.toFixed(3) ?? "-"
        } ms/req, rss ${level.gatewayRssPeakMb} MB`,
      );
      levels.push(level);
    }
    return {
      result: {
        name: spec.name,
        stream: spec.stream,
        maxTokens: spec.maxTokens,
        tokensPerSecond: spec.tokensPerSecond,
        levels,
        gatewayIdleRssMb: mb(idle.rss),
      },
      pidIsGateway,
    };
  } finally {
    // The gateway first: it stops its own engine, then writes the usage still in memory.
    for (const c of children.reverse()) await c.stop();
  }
}

function diff(a: number | undefined, b: number | undefined): number | null {
  return a === undefined || b === undefined ? null : a - b;
}

function brief(r: LoadResult): string {
  const errs = errorCount(r);
  return `${r.ok} ok${errs ? `, ${errs} failed` : ""}, ${r.requestsPerSecond.toFixed(0)} req/s, ` +
    `p50 ${r.latencyMs?.p50.toFixed(2) ?? "-"} ms, p99 ${r.latencyMs?.p99.toFixed(2) ?? "-"} ms` +
    (r.ttftMs ? `, ttft p50 ${r.ttftMs.p50.toFixed(2)} ms` : "");
}

/** The pid spawned must be llmgw up itself (deno running main.ts, or the compiled binary). */
async function isLlmgwUp(pid: number): Promise<boolean> {
  try {
    const argv = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0");
    return argv.includes("up") && !/(^|\/)(sh|bash|env|timeout)$/.test(argv[0] ?? "");
  } catch {
    return false;
  }
}

async function machineInfo(clkTck: number, loadAvgBefore: number[]): Promise<MachineInfo> {
  let cpuModel: string | null = null;
  let memoryMb: number | null = null;
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(await Deno.readTextFile("/proc/cpuinfo"))?.[1] ??
      null;
    const kb = /^MemTotal:\s+(\d+)/m.exec(await Deno.readTextFile("/proc/meminfo"))?.[1];
    if (kb) memoryMb = Math.round(Number(kb) / 1024);
  } catch {
    // Not Linux: the model and memory stay unknown.
  }
  return {
    cpus: navigator.hardwareConcurrency,
    cpuModel,
    memoryMb,
    os: `${Deno.build.os}/${Deno.build.arch}`,
    kernel: Deno.osRelease(),
    deno: Deno.version.deno,
    clkTck,
    loadAvgBefore,
    loadAvgAfter: Deno.loadavg(),
    date: new Date().toISOString(),
  };
}

/**
 * Limits stay on (every request is still admitted, counted and settled), set high enough that
 * the load is never refused: init's defaults of 60 requests a minute per key would be.
 */
export async function raiseLimits(baseUrl: string, dataDir: string): Promise<void> {
  const token = (await Deno.readTextFile(`${dataDir}/admin.token`)).trim();
  const res = await fetch(`${baseUrl}/api/v1/limits/global/global`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ rpm: 100_000_000, tpm: 100_000_000_000 }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`raising the gateway's limits failed: ${res.status} ${text}`);
}

/** The policy every request of the gateway leg goes through: what the guardrails cost. */
async function setGuardPolicy(baseUrl: string, dataDir: string, policy: unknown): Promise<void> {
  const token = (await Deno.readTextFile(`${dataDir}/admin.token`)).trim();
  const res = await fetch(`${baseUrl}/api/v1/guard/policies/bench`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(policy),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`setting the guardrail policy failed: ${res.status} ${text}`);
}
