/**
 * The supervisor's record of one replica, and how a launch spec becomes one: validated, given an
 * engine, a port, a launch plan and a directory. Everything here is synchronous, so the supervisor
 * can register the replica before its first await and a concurrent ensure joins it.
 */
import type { EngineAdapter, LaunchPlan } from "./engines/engine_adapter.ts";
import { LaunchPlanError } from "../core/engines/launch_plan_error.ts";
import type { EngineProcess } from "./engine_process.ts";
import { OutputTail } from "./output_tail.ts";
import type { LaunchSpec, ReplicaHandle } from "./launch_spec.ts";
import type { ReplicaRecord } from "./replica_registry.ts";

export interface Replica {
  readonly spec: LaunchSpec;
  readonly adapter: EngineAdapter;
  /** Rebuilt when an adoption falls through and the recorded port is no longer free. */
  plan: LaunchPlan;
  /** The engine's cwd and HOME. */
  readonly dir: string;
  handle: ReplicaHandle;
  proc?: EngineProcess;
  /** What its engines printed, across restarts: the live log a model's page shows. */
  readonly log: OutputTail;
  /** The current start or restart: resolves at ready, rejects when it gives up. */
  settled: Promise<void>;
  stopping: boolean;
  /** Restart attempts in the current run of failures. */
  attempts: number;
  readySince: number;
  /** Real-time ms of the last start or progress (touch); the ready timeout counts from here. */
  lastProgress: number;
  /** An engine an earlier agent started and this one took over: not our child, so watched. */
  adopted?: { readonly pid: number; readonly procStart?: number } | undefined;
  /** Polls an adopted engine for its exit. */
  watch?: ReturnType<typeof setInterval>;
  /** Ends the probing of a ready engine's health route (health_watch.ts). */
  health?: (() => void) | undefined;
  /** Ends a restart backoff early, for stop(). */
  wake?: () => void;
  /** Set by stop(); an ensure that arrives meanwhile waits for it, then starts afresh. */
  stopped?: Promise<void> | undefined;
  /** The last stop was refused by the kernel: the engine still runs (see StopRefusedError). */
  stopRefused?: Error;
}

/** Also keeps the id safe as a directory name. */
const replicaIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws `LaunchPlanError` (the adapter's flag gate included) before anything is started. */
export function prepareReplica(
  spec: LaunchSpec,
  adapters: Readonly<Record<string, EngineAdapter>>,
  workDir: string,
  now: number,
  pickPort: (host: string) => number,
): Replica {
  if (!replicaIdPattern.test(spec.replicaId)) {
    throw new LaunchPlanError(
      spec.engine,
      `replica id "${spec.replicaId}" must be letters, digits, ".", "_" or "-" (at most 128)`,
    );
  }
  const engine = Object.hasOwn(adapters, spec.engine) ? adapters[spec.engine] : undefined;
  if (!engine) {
    const known = Object.keys(adapters).sort().join(", ");
    throw new LaunchPlanError(spec.engine, `no such engine here; known engines: ${known}`);
  }
  // A set's worker runs the engine's worker side (llama.cpp's rpc-server), not its server.
  const adapter = spec.profile?.set?.role === "worker" ? engine.worker : engine;
  if (!adapter) {
    throw new LaunchPlanError(spec.engine, "this engine cannot be a worker of a set of nodes");
  }
  const host = spec.host ?? "127.0.0.1";
  const port = spec.port || pickPort(host);
  const plan = planFor(spec, adapter, host, port);
  return {
    spec,
    adapter,
    plan,
    dir: `${workDir}/replicas/${spec.replicaId}`,
    handle: {
      replicaId: spec.replicaId,
      model: spec.model,
      engine: spec.engine,
      baseUrl: baseUrlFor(host, port),
      pid: 0,
      port,
      state: "starting",
      startedAt: now,
      restarts: 0,
      ...(spec.profile?.parallel !== undefined ? { slots: spec.profile.parallel } : {}),
    },
    log: new OutputTail([spec.apiKey]),
    settled: Promise.resolve(),
    stopping: false,
    attempts: 0,
    readySince: 0,
    lastProgress: Date.now(),
  };
}

/** The adapter's launch plan for the spec on `host:port`; throws LaunchPlanError. */
export function planFor(
  spec: LaunchSpec,
  adapter: EngineAdapter,
  host: string,
  port: number,
): LaunchPlan {
  return adapter.plan({
    model: spec.model,
    ...(spec.modelPath !== undefined ? { modelPath: spec.modelPath } : {}),
    ...(spec.binary !== undefined ? { binary: spec.binary } : {}),
    ...(spec.version !== undefined ? { version: spec.version } : {}),
    ...(spec.profile !== undefined ? { profile: spec.profile } : {}),
    args: spec.args ?? [],
    allowFlags: spec.allowFlags ?? [],
    host,
    port,
    apiKey: spec.apiKey,
  });
}

export function baseUrlFor(host: string, port: number): string {
  return `http://${urlHost(host)}:${port}`;
}

/**
 * The engine's whole environment, deny-by-default: nothing of the agent's own (its secrets, proxy
 * settings, DB paths) leaks into a process that parses untrusted weights.
 */
export function replicaEnv(replica: Replica): Record<string, string> {
  const gpus = replica.spec.gpus;
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: replica.dir,
    LANG: Deno.env.get("LANG") ?? "C.UTF-8",
    ...(gpus ? { CUDA_VISIBLE_DEVICES: gpus.join(",") } : {}),
    ...runMarks(),
    ...replica.plan.env,
  };
}

/**
 * The test suite's marks (tests/leftovers.ts), carried so an engine left running is traced to the
 * run that started it. They hold random ids and nothing else; absent outside the tests.
 */
function runMarks(): Record<string, string> {
  const marks: Record<string, string> = {};
  for (const name of ["LLMGW_TEST_SUITE", "LLMGW_TEST_OWNER"]) {
    const value = Deno.env.get(name);
    if (value && /^[0-9a-f-]{36}$/.test(value)) marks[name] = value;
  }
  return marks;
}

/** What the registry keeps about a running replica; no secret. */
export function replicaRecord(replica: Replica): ReplicaRecord {
  const h = replica.handle;
  const procStart = replica.proc?.procStart ?? replica.adopted?.procStart;
  return {
    replicaId: h.replicaId,
    engine: h.engine,
    model: h.model,
    pid: h.pid,
    ...(procStart !== undefined ? { procStart } : {}),
    port: h.port,
    baseUrl: h.baseUrl,
    startedAt: h.startedAt,
  };
}

/** Wildcard binds are probed through loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
