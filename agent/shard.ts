/**
 * The supervisor's record of one shard, and how a launch spec becomes one: validated, given an
 * engine, a port, a launch plan and a directory. Everything here is synchronous, so the supervisor
 * can register the shard before its first await and a concurrent ensure joins it.
 */
import type { EngineAdapter, LaunchPlan } from "./engines/engine_adapter.ts";
import { LaunchPlanError } from "./engines/launch_plan_error.ts";
import type { EngineProcess } from "./engine_process.ts";
import type { LaunchSpec, ShardHandle } from "./launch_spec.ts";
import type { ShardRecord } from "./shard_registry.ts";

export interface Shard {
  readonly spec: LaunchSpec;
  readonly adapter: EngineAdapter;
  readonly plan: LaunchPlan;
  /** The engine's cwd and HOME. */
  readonly dir: string;
  handle: ShardHandle;
  proc?: EngineProcess;
  /** The current start or restart: resolves at ready, rejects when it gives up. */
  settled: Promise<void>;
  stopping: boolean;
  /** Restart attempts in the current run of failures. */
  attempts: number;
  readySince: number;
  /** Ends a restart backoff early, for stop(). */
  wake?: () => void;
  /** Set by stop(); an ensure that arrives meanwhile waits for it, then starts afresh. */
  stopped?: Promise<void>;
}

/** Also keeps the id safe as a directory name. */
const shardIdPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Throws `LaunchPlanError` (the adapter's flag gate included) before anything is started. */
export function prepareShard(
  spec: LaunchSpec,
  adapters: Readonly<Record<string, EngineAdapter>>,
  workDir: string,
  now: number,
): Shard {
  if (!shardIdPattern.test(spec.shardId)) {
    throw new LaunchPlanError(
      spec.engine,
      `shard id "${spec.shardId}" must be letters, digits, ".", "_" or "-" (at most 128)`,
    );
  }
  const adapter = Object.hasOwn(adapters, spec.engine) ? adapters[spec.engine] : undefined;
  if (!adapter) {
    const known = Object.keys(adapters).sort().join(", ");
    throw new LaunchPlanError(spec.engine, `no such engine here; known engines: ${known}`);
  }
  const host = spec.host ?? "127.0.0.1";
  const port = spec.port || freePort(host);
  const plan = adapter.plan({
    model: spec.model,
    ...(spec.modelPath !== undefined ? { modelPath: spec.modelPath } : {}),
    ...(spec.binary !== undefined ? { binary: spec.binary } : {}),
    ...(spec.profile !== undefined ? { profile: spec.profile } : {}),
    args: spec.args ?? [],
    allowFlags: spec.allowFlags ?? [],
    host,
    port,
    apiKey: spec.apiKey,
  });
  return {
    spec,
    adapter,
    plan,
    dir: `${workDir}/shards/${spec.shardId}`,
    handle: {
      shardId: spec.shardId,
      model: spec.model,
      engine: spec.engine,
      baseUrl: `http://${urlHost(host)}:${port}`,
      pid: 0,
      port,
      state: "starting",
      startedAt: now,
      restarts: 0,
    },
    settled: Promise.resolve(),
    stopping: false,
    attempts: 0,
    readySince: 0,
  };
}

/**
 * The engine's whole environment, deny-by-default: nothing of the agent's own (its secrets, proxy
 * settings, DB paths) leaks into a process that parses untrusted weights.
 */
export function shardEnv(shard: Shard): Record<string, string> {
  const gpus = shard.spec.gpus;
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: shard.dir,
    LANG: Deno.env.get("LANG") ?? "C.UTF-8",
    ...(gpus ? { CUDA_VISIBLE_DEVICES: gpus.join(",") } : {}),
    ...shard.plan.env,
  };
}

/** What the registry keeps about a running shard; no secret. */
export function shardRecord(shard: Shard): ShardRecord {
  const h = shard.handle;
  return {
    shardId: h.shardId,
    engine: h.engine,
    model: h.model,
    pid: h.pid,
    ...(shard.proc?.procStart !== undefined ? { procStart: shard.proc.procStart } : {}),
    port: h.port,
    baseUrl: h.baseUrl,
    startedAt: h.startedAt,
  };
}

/** A port free right now on `host`; the engine binds it a moment later. */
function freePort(host: string): number {
  const listener = Deno.listen({ hostname: host, port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Wildcard binds are probed through loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
