/**
 * The engine supervisor: runs inference engines as confined child processes (own process group,
 * deny-by-default environment, own working directory), waits for them to answer, restarts them when
 * they crash, stops them with everything they started, and reads their load.
 *
 * Shutdown: engines run in their own session, so SIGINT/SIGTERM to the agent does not reach them;
 * its owner must call `stopAll()` on those signals. An agent that died without that (SIGKILL) is
 * cleaned up after by the next one's `reapOrphans()`, called at start, from the registry file.
 */
import { runAsPlan } from "./run_as.ts";
import { type Clock, systemClock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import { backoffDelay, wakeableSleep } from "../core/backoff_delay.ts";
import type { EngineAdapter } from "./engines/engine_adapter.ts";
import { type LoadSnapshot, unknownLoad } from "../core/protocol/load_snapshot.ts";
import { describeExit, EngineProcess } from "./engine_process.ts";
import { EngineStartError } from "./engine_start_error.ts";
import {
  launchDefaults,
  type LaunchSpec,
  type ReplicaHandle,
  type ReplicaState,
} from "./launch_spec.ts";
import { readEngineLoad } from "./read_engine_load.ts";
import { reapOrphans } from "./reap_orphans.ts";
import { StopRefusedError } from "./stop_refused_error.ts";
import { healthProbe } from "./health_probe.ts";
import { watchHealth } from "./health_watch.ts";
import { NoFreePortError, PortPicker, type PortRange } from "./port_picker.ts";
import { judgeRecord, stopRecorded } from "./adopt_record.ts";
import { isFree } from "./port_picker.ts";
import { readStat } from "./proc_tree.ts";
import { planFor, prepareReplica, type Replica, replicaEnv, replicaRecord } from "./replica.ts";
import { ReplicaKeys } from "./replica_keys.ts";
import { type ReplicaRecord, ReplicaRegistry } from "./replica_registry.ts";

export interface SupervisorDeps {
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly adapters: Readonly<Record<string, EngineAdapter>>;
  /** Holds `shards/<id>/` (each engine's cwd and HOME) and the registry file. */
  readonly workDir: string;
  readonly fetch?: typeof fetch;
  /** Every state or pid change, for the control plane's replica table. Must not throw. */
  readonly onChange?: (handle: ReplicaHandle) => void;
  /** How long a stopped engine gets between SIGTERM and SIGKILL. */
  readonly stopGraceMs?: number;
  /** Ports for engines (e.g. 30000-30999), each checked free; absent: the kernel picks. */
  readonly portRange?: PortRange;
  /** How often an adopted engine (not our child, so no exit event) is checked for life. */
  readonly adoptedWatchMs?: number;
  /** Each health probe of an engine found running, before it is judged wedged. Default 3 s. */
  readonly adoptProbeTimeoutMs?: number;
  /** Run engines as this user (through setpriv; see run_as.ts); absent: as the agent's user. */
  readonly runAs?: string;
  /**
   * How often a ready engine's health route is probed (each probe bounded by the interval, at
   * most 5 s); 0 turns the probes off. Default 10 s.
   */
  readonly healthIntervalMs?: number;
  /**
   * Probes failed in a row before a ready engine counts as hung: unhealthy (out of routing at
   * once), and restarted if as many more fail. Default 3.
   */
  readonly healthFailures?: number;
}

const defaults = {
  ...launchDefaults,
  maxRestartDelayMs: 60_000,
  /** A crash after this long ready starts the restart count afresh: it is not a crash loop. */
  stableAfterMs: 60_000,
  stopGraceMs: 5_000,
  healthIntervalMs: 10_000,
  healthFailures: 3,
};

export class Supervisor {
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #adapters: Readonly<Record<string, EngineAdapter>>;
  readonly #workDir: string;
  readonly #fetch: typeof fetch;
  readonly #onChange: (handle: ReplicaHandle) => void;
  readonly #graceMs: number;
  readonly #hurry = new AbortController();
  readonly #registry: ReplicaRegistry;
  readonly #keys: ReplicaKeys;
  readonly #ports: PortPicker;
  readonly #watchMs: number;
  readonly #adoptProbeMs: number | undefined;
  readonly #shards = new Map<string, Replica>();

  readonly #runAs: string | undefined;
  readonly #healthMs: number;
  readonly #healthFailures: number;
  constructor(deps: SupervisorDeps) {
    this.#log = deps.logger.child({ component: "supervisor" });
    this.#clock = deps.clock ?? systemClock;
    this.#adapters = deps.adapters;
    this.#workDir = deps.workDir;
    this.#fetch = deps.fetch ?? fetch;
    this.#onChange = deps.onChange ?? (() => {});
    this.#graceMs = deps.stopGraceMs ?? defaults.stopGraceMs;
    this.#registry = new ReplicaRegistry(`${deps.workDir}/shards.json`);
    this.#keys = new ReplicaKeys(`${deps.workDir}/keys`);
    this.#ports = new PortPicker(deps.portRange);
    this.#watchMs = deps.adoptedWatchMs ?? 1_000;
    this.#adoptProbeMs = deps.adoptProbeTimeoutMs;
    this.#runAs = deps.runAs || undefined;
    this.#healthMs = deps.healthIntervalMs ?? defaults.healthIntervalMs;
    this.#healthFailures = Math.max(1, deps.healthFailures ?? defaults.healthFailures);
  }

  /**
   * Starts the shard unless it already runs; resolves once it answers its health check. A second
   * call with the same id (also while the first is starting) joins it and never starts a second
   * process; a failed shard is started afresh. An engine an earlier agent left running for this
   * shard (the registry) is adopted when it is alive, holds this key and answers its health
   * check; otherwise it is stopped and the shard started anew. Throws `LaunchPlanError` for a spec
   * that is refused before anything runs, `EngineStartError` for an engine that did not come up.
   */
  async ensure(spec: LaunchSpec): Promise<ReplicaHandle> {
    const existing = this.#shards.get(spec.shardId);
    // Starting another engine beside one we cannot stop would only fight it for its card.
    if (existing?.stopRefused) throw existing.stopRefused;
    if (existing?.stopped) {
      await existing.stopped;
      return this.ensure(spec);
    }
    if (existing && existing.handle.state !== "failed") {
      if (existing.spec.model !== spec.model || existing.spec.engine !== spec.engine) {
        this.#log.warn("shard already runs with another model; keeping it", {
          shardId: spec.shardId,
          running: `${existing.spec.engine}/${existing.spec.model}`,
          asked: `${spec.engine}/${spec.model}`,
        });
      }
      if (existing.spec.apiKey !== spec.apiKey) {
        // The router will call with the new key, which the running engine would refuse.
        this.#log.info("shard asked for with another key; restarting it", {
          shardId: spec.shardId,
        });
        await this.stop(spec.shardId);
        return this.ensure(spec);
      }
      await existing.settled;
      return existing.handle;
    }
    // Everything up to the map entry is synchronous, so a concurrent ensure sees this shard.
    const record = this.#registry.read().find((r) => r.shardId === spec.shardId);
    let shard: Replica;
    try {
      shard = prepareReplica(
        spec,
        this.#adapters,
        this.#workDir,
        this.#clock.now(),
        (host) => record?.port ?? this.#pickPort(host),
      );
    } catch (e) {
      if (e instanceof NoFreePortError) {
        throw new EngineStartError(spec.shardId, spec.engine, e.message, "");
      }
      throw e;
    }
    this.#shards.set(spec.shardId, shard);
    shard.settled = record ? this.#adoptOrStart(shard, record) : this.#start(shard);
    try {
      await shard.settled;
    } catch (e) {
      if (!shard.stopping) this.#setState(shard, "failed");
      this.#saveRegistry();
      throw e;
    }
    return shard.handle;
  }

  /**
   * Stops the shard's whole process tree (SIGTERM, grace, SIGKILL) and forgets it. An unknown or
   * already-exited shard counts as stopped.
   */
  stop(shardId: string): Promise<void> {
    const shard = this.#shards.get(shardId);
    if (!shard) return Promise.resolve();
    shard.stopped ??= this.#stop(shard);
    return shard.stopped;
  }

  async #stop(shard: Replica): Promise<void> {
    const shardId = shard.spec.shardId;
    shard.stopping = true;
    shard.wake?.();
    clearInterval(shard.watch);
    shard.health?.();
    const terminate = async () => {
      const cut = this.#hurry.signal;
      if (shard.proc) await shard.proc.terminate(this.#graceMs, cut);
      else if (shard.adopted) await stopRecorded(shard.adopted, this.#graceMs, cut);
    };
    try {
      await terminate();
      await shard.settled.catch(() => {});
      // A stop that came while an earlier engine was being judged for adoption, or before the new
      // one was spawned, found no process: the one adopted or spawned meanwhile must go too, or it
      // runs on, out of the registry, holding its GPU memory until someone kills it by hand.
      await terminate();
    } catch (e) {
      if (!(e instanceof StopRefusedError)) throw e;
      this.#stopRefused(shard, e);
      throw e;
    }
    if (this.#shards.get(shardId) === shard) this.#shards.delete(shardId);
    this.#setState(shard, "stopped");
    this.#saveRegistry();
    if (!this.#shards.has(shardId)) this.#keys.remove(shardId);
    this.#log.info("engine stopped", { shardId, engine: shard.spec.engine });
  }

  /**
   * Stops every shard, in parallel. Call on SIGINT/SIGTERM (see the module comment). An engine
   * that could not be stopped is logged (and reported) and does not keep the others or the agent
   * from stopping.
   */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#shards.keys()].map((id) => this.stop(id)));
  }

  /**
   * The engine is still there and we may not signal it: the shard is failed with the reason, kept
   * (and in the registry, so an agent that may signal it stops it later), and a later stop tries
   * again rather than counting it as done.
   */
  #stopRefused(shard: Replica, e: StopRefusedError): void {
    shard.stopped = undefined;
    shard.stopRefused = e;
    shard.handle = { ...shard.handle, state: "failed", error: e.message };
    this.#emit(shard);
    this.#saveRegistry();
    this.#log.error("engine could not be stopped", {
      shardId: shard.spec.shardId,
      pid: e.pid,
      error: e.message,
    });
  }

  /**
   * Lets go of every engine without stopping it: the agent is about to exit and the next one
   * adopts them from the registry (which stays as it is). Nothing is watched or probed from now on.
   */
  detach(): void {
    for (const shard of this.#shards.values()) {
      shard.stopping = true;
      shard.wake?.();
      clearInterval(shard.watch);
      shard.health?.();
    }
  }

  /**
   * From now on engines being stopped, or stopped later, get no grace: SIGKILL at once. For a
   * second Ctrl-C: whoever presses it wants out now, and a third would end the agent and leave
   * its engines running, holding their GPU memory.
   */
  hurry(): void {
    this.#hurry.abort();
  }

  /** Every shard held, failed ones included until stopped or ensured again. */
  list(): ReplicaHandle[] {
    return [...this.#shards.values()].map((s) => s.handle);
  }

  get(shardId: string): ReplicaHandle | undefined {
    return this.#shards.get(shardId)?.handle;
  }

  /**
   * The key a shard's engine was started with: the held shard's, or, for an engine an earlier agent
   * left running, the one kept for it (0600, see replica_keys.ts). Never logged or reported.
   */
  apiKey(shardId: string): string | undefined {
    return this.#shards.get(shardId)?.spec.apiKey ?? this.#keys.read(shardId);
  }

  /** Engines an earlier agent recorded and this one holds no shard for (candidates to adopt). */
  recorded(): ReplicaRecord[] {
    return this.#registry.read().filter((r) => !this.#shards.has(r.shardId));
  }

  /**
   * Progress from whatever the start waits on (a download, a load): the ready timeout counts from
   * the last progress, so a large model that keeps moving is not given up on, while one that stalls
   * is. No effect on a shard that is not starting.
   */
  touch(shardId: string): void {
    const shard = this.#shards.get(shardId);
    if (shard && (shard.handle.state === "starting" || shard.handle.state === "restarting")) {
      shard.lastProgress = Date.now();
    }
  }

  /** One readiness check of the shard's engine, as its adapter is probed. */
  #probe(shard: Replica): (timeoutMs: number) => Promise<boolean> {
    const { adapter, handle, spec } = shard;
    if (adapter.probe === "running") return () => Promise.resolve(true);
    if (adapter.probe === "tcp") return (timeoutMs) => tcpAnswers(handle.port, timeoutMs);
    const isReady = (status: number, body: string) => adapter.isReady(status, body);
    return healthProbe(this.#fetch, handle.baseUrl + adapter.healthPath, spec.apiKey, isReady);
  }

  /**
   * The engine's load from its Prometheus endpoint, time-boxed and size-bounded. A shard that is
   * not ready, an engine that does not answer, or a page without the dialect's names is unknown
   * load. Never throws.
   */
  readLoad(shardId: string): Promise<LoadSnapshot> {
    const readAt = this.#clock.now();
    const shard = this.#shards.get(shardId);
    if (!shard || shard.handle.state !== "ready" || shard.adapter.probe) {
      return Promise.resolve(unknownLoad(readAt));
    }
    const { baseUrl } = shard.handle;
    return readEngineLoad(this.#fetch, baseUrl, shard.adapter, shard.spec.apiKey, readAt);
  }

  /**
   * Stops engines that a previous agent on this work directory recorded and left running. Call once
   * at start, before the first ensure. Returns how many were stopped.
   */
  async reapOrphans(): Promise<number> {
    const records = this.#registry.read().filter((r) => !this.#shards.has(r.shardId));
    const reaped = await reapOrphans(records, this.#graceMs, this.#log);
    this.#saveRegistry();
    for (const r of records) if (!this.#shards.has(r.shardId)) this.#keys.remove(r.shardId);
    return reaped;
  }

  #pickPort(host: string): number {
    const taken = new Set([...this.#shards.values()].map((s) => s.handle.port));
    for (const r of this.#registry.read()) taken.add(r.port);
    return this.#ports.pick(host, taken);
  }

  /** The registry names an engine for this shard: take it over if it is sound, else replace it. */
  async #adoptOrStart(shard: Replica, record: ReplicaRecord): Promise<void> {
    const { spec } = shard;
    const verdict = await judgeRecord(record, {
      spec,
      baseUrl: shard.handle.baseUrl,
      storedKey: this.#keys.read(spec.shardId),
      ...(this.#adoptProbeMs !== undefined ? { probeTimeoutMs: this.#adoptProbeMs } : {}),
      probe: this.#probe(shard),
    });
    if (verdict.adopt) {
      const stat = readStat(record.pid);
      shard.adopted = {
        pid: record.pid,
        ...(stat?.startTime !== undefined ? { procStart: stat.startTime } : {}),
      };
      shard.handle = { ...shard.handle, pid: record.pid, startedAt: record.startedAt };
      shard.readySince = this.#clock.now();
      this.#setState(shard, "ready");
      this.#saveRegistry();
      this.#watchAdopted(shard);
      this.#watchHealth(shard);
      this.#log.info("adopted an engine an earlier agent started", {
        shardId: spec.shardId,
        pid: record.pid,
      });
      return;
    }
    this.#log.info("not adopting the recorded engine", {
      shardId: spec.shardId,
      pid: record.pid,
      reason: verdict.reason,
    });
    if (verdict.kill) await stopRecorded(verdict.kill, this.#graceMs);
    const host = spec.host ?? "127.0.0.1";
    if (!spec.port && !isFree(host, shard.handle.port)) {
      const port = this.#pickPort(host);
      shard.plan = planFor(spec, shard.adapter, host, port);
      shard.handle = {
        ...shard.handle,
        port,
        baseUrl: shard.handle.baseUrl.replace(/:\d+$/, `:${port}`),
      };
    }
    await this.#start(shard);
  }

  /** An adopted engine is not our child: no exit event comes, so its life is polled. */
  #watchAdopted(shard: Replica): void {
    const adopted = shard.adopted;
    if (!adopted) return;
    shard.watch = setInterval(() => {
      if (shard.stopping || shard.adopted !== adopted) return clearInterval(shard.watch);
      const stat = readStat(adopted.pid);
      const alive = stat && stat.state !== "Z" &&
        (adopted.procStart === undefined || stat.startTime === adopted.procStart);
      if (alive) return;
      clearInterval(shard.watch);
      if (!running(shard)) return;
      shard.health?.();
      this.#log.warn("adopted engine exited unexpectedly", {
        shardId: shard.spec.shardId,
        pid: adopted.pid,
      });
      shard.settled = this.#recover(shard, () => stopRecorded(adopted, this.#graceMs), "");
      shard.settled.catch(() => {});
    }, this.#watchMs);
    Deno.unrefTimer(shard.watch);
  }

  /** One attempt: spawn, wait for ready. On failure the process tree is gone when this throws. */
  async #start(shard: Replica): Promise<void> {
    const { spec } = shard;
    const plan = shard.plan;
    shard.adopted = undefined;
    clearInterval(shard.watch);
    shard.health?.();
    try {
      await Deno.mkdir(shard.dir, { recursive: true });
      this.#keys.write(spec.shardId, spec.apiKey);
    } catch (e) {
      throw this.#startError(shard, `could not create ${shard.dir}: ${String(e)}`, "");
    }
    if (shard.stopping) throw this.#startError(shard, "was stopped while starting", "");
    let proc: EngineProcess;
    try {
      const launch = this.#runAs
        ? runAsPlan(this.#runAs, plan.cmd, plan.args)
        : { cmd: plan.cmd, args: plan.args };
      proc = EngineProcess.spawn({
        cmd: launch.cmd,
        args: launch.args,
        env: replicaEnv(shard),
        cwd: shard.dir,
        secrets: [spec.apiKey],
      });
    } catch (e) {
      const reason = e instanceof Deno.errors.NotFound
        ? `could not start: ${plan.cmd} was not found`
        : `could not start: ${e instanceof Error ? e.message : String(e)}`;
      throw this.#startError(shard, reason, "");
    }
    shard.proc = proc;
    shard.handle = { ...shard.handle, pid: proc.pid, startedAt: this.#clock.now() };
    this.#emit(shard);
    this.#saveRegistry();
    this.#log.info("engine starting", {
      shardId: spec.shardId,
      engine: spec.engine,
      model: spec.model,
      pid: proc.pid,
      port: shard.handle.port,
    });
    this.#log.debug("engine command", { shardId: spec.shardId, cmd: plan.cmd, args: plan.args });
    proc.exited.then((status) => this.#onExit(shard, proc, status));

    const probe = this.#probe(shard);
    const timeoutMs = spec.readyTimeoutMs ?? defaults.readyTimeoutMs;
    shard.lastProgress = Date.now();
    const failure = shard.stopping ? "was stopped while starting" : await proc.waitReady(
      probe,
      () => shard.lastProgress + timeoutMs,
      timeoutMs,
      spec.pollIntervalMs ?? defaults.pollIntervalMs,
    );
    if (failure !== undefined || shard.stopping) {
      await proc.terminate(this.#graceMs);
      const reason = shard.stopping ? "was stopped while starting" : failure ?? "";
      const err = this.#startError(shard, reason, proc.tail.text());
      this.#log.warn("engine did not start", { shardId: spec.shardId, error: err.message });
      throw err;
    }
    shard.readySince = this.#clock.now();
    this.#setState(shard, "ready");
    this.#watchHealth(shard);
    this.#log.info("engine ready", { shardId: spec.shardId, pid: proc.pid });
    const notes = shard.adapter.readyNotes?.(proc.tail.text()) ?? [];
    if (notes.length) this.#log.info("engine placed parts on other nodes", { notes });
  }

  /**
   * Probes a ready engine's health route (health_watch.ts): unhealthy is reported (the router
   * stops sending it requests), recovered is ready again, and a hung one is stopped and restarted
   * with the crash backoff.
   */
  #watchHealth(shard: Replica): void {
    shard.health?.();
    if (this.#healthMs <= 0) return;
    const { proc, adopted } = shard;
    const shardId = shard.spec.shardId;
    shard.health = watchHealth({
      probe: this.#probe(shard),
      intervalMs: this.#healthMs,
      failures: this.#healthFailures,
      current: () =>
        !shard.stopping && shard.proc === proc && shard.adopted === adopted && running(shard),
      onUnhealthy: (failures) => {
        this.#setState(shard, "unhealthy");
        this.#log.warn("engine fails its health check; out of routing", { shardId, failures });
      },
      onRecovered: () => {
        this.#setState(shard, "ready");
        this.#log.info("engine answers its health check again", { shardId });
      },
      onHung: (failures) => {
        this.#log.warn("engine did not recover; restarting it", { shardId, failures });
        const cleanUp = proc
          ? () => proc.terminate(this.#graceMs)
          : adopted
          ? () => stopRecorded(adopted, this.#graceMs)
          : () => Promise.resolve();
        // Not "unhealthy" while it is killed, or its exit would count as a crash and start a
        // second recovery beside this one.
        this.#setState(shard, "restarting");
        shard.settled = this.#recover(shard, cleanUp, proc?.tail.text() ?? "");
        shard.settled.catch(() => {});
      },
    });
  }

  #onExit(shard: Replica, proc: EngineProcess, status: Deno.CommandStatus): void {
    // Exits while starting are the start attempt's to report; stops are expected.
    if (shard.proc !== proc || shard.stopping || !running(shard)) return;
    shard.health?.();
    this.#log.warn("engine exited unexpectedly", {
      shardId: shard.spec.shardId,
      pid: proc.pid,
      exit: describeExit(status),
      output: proc.tail.text().split("\n").slice(-5).join("\n"),
    });
    shard.settled = this.#recover(shard, () => proc.terminate(this.#graceMs), proc.tail.text());
    shard.settled.catch(() => {});
  }

  /** Restarts a crashed shard with exponential backoff and jitter, until ready or out of tries. */
  async #recover(
    shard: Replica,
    cleanUp: () => Promise<void>,
    crashOutput: string,
  ): Promise<void> {
    // Whatever the engine left behind in its group holds the port and memory the restart needs.
    await cleanUp();
    const policy = shard.spec.restart ?? defaults.restart;
    if (this.#clock.now() - shard.readySince >= defaults.stableAfterMs) shard.attempts = 0;
    let last: unknown;
    while (shard.attempts < policy.maxAttempts && !shard.stopping) {
      shard.attempts++;
      shard.handle = { ...shard.handle, restarts: shard.handle.restarts + 1 };
      this.#setState(shard, "restarting");
      const delay = backoffDelay(shard.attempts, policy.baseDelayMs, defaults.maxRestartDelayMs);
      const sleep = wakeableSleep(delay);
      shard.wake = sleep.wake;
      await sleep.done;
      if (shard.stopping) break;
      try {
        await this.#start(shard);
        return;
      } catch (e) {
        last = e;
      }
    }
    if (shard.stopping) throw this.#startError(shard, "was stopped while restarting", "");
    this.#setState(shard, "failed");
    this.#saveRegistry();
    const error = last instanceof Error ? last.message : undefined;
    this.#log.error("engine gave up restarting", { shardId: shard.spec.shardId, error });
    throw last ?? this.#startError(shard, "crashed and may not restart", crashOutput);
  }

  #startError(shard: Replica, reason: string, output: string): EngineStartError {
    return new EngineStartError(shard.spec.shardId, shard.spec.engine, reason, output);
  }

  #setState(shard: Replica, state: ReplicaState): void {
    shard.handle = { ...shard.handle, state };
    this.#emit(shard);
  }

  #emit(shard: Replica): void {
    try {
      this.#onChange(shard.handle);
    } catch (e) {
      this.#log.error("onChange listener threw", { error: e instanceof Error ? e : String(e) });
    }
  }

  #saveRegistry(): void {
    const records = [...this.#shards.values()]
      .filter((s) =>
        (s.proc ? !s.proc.status : s.adopted !== undefined) && s.handle.state !== "stopped"
      )
      .map(replicaRecord);
    try {
      Deno.mkdirSync(this.#workDir, { recursive: true });
      this.#registry.write(records);
    } catch (e) {
      this.#log.warn("could not write the shard registry", { error: e instanceof Error ? e : "" });
    }
  }
}

/** Ready, or ready once and now hung: an exit or a failed probe is then the watcher's to handle. */
function running(shard: Replica): boolean {
  return shard.handle.state === "ready" || shard.handle.state === "unhealthy";
}

/** Whether something accepts a connection on loopback `port` within `timeoutMs`. */
async function tcpAnswers(port: number, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connecting = Deno.connect({ hostname: "127.0.0.1", port });
  const timeout = new Promise<undefined>((
    r,
  ) => (timer = setTimeout(() => r(undefined), timeoutMs)));
  try {
    const conn = await Promise.race([connecting, timeout]);
    if (!conn) {
      connecting.then((c) => c.close(), () => {});
      return false;
    }
    conn.close();
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
