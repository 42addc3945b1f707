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
import { removeSlotFiles } from "./slot_files.ts";
import { type ReplicaRecord, ReplicaRegistry } from "./replica_registry.ts";

export interface SupervisorDeps {
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly adapters: Readonly<Record<string, EngineAdapter>>;
  /** Holds `replicas/<id>/` (each engine's cwd and HOME) and the registry file. */
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
  readonly #replicas = new Map<string, Replica>();

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
    this.#registry = new ReplicaRegistry(`${deps.workDir}/replicas.json`);
    this.#keys = new ReplicaKeys(`${deps.workDir}/keys`);
    this.#ports = new PortPicker(deps.portRange);
    this.#watchMs = deps.adoptedWatchMs ?? 1_000;
    this.#adoptProbeMs = deps.adoptProbeTimeoutMs;
    this.#runAs = deps.runAs || undefined;
    this.#healthMs = deps.healthIntervalMs ?? defaults.healthIntervalMs;
    this.#healthFailures = Math.max(1, deps.healthFailures ?? defaults.healthFailures);
  }

  /**
   * Starts the replica unless it already runs; resolves once it answers its health check. A second
   * call with the same id (also while the first is starting) joins it and never starts a second
   * process; a failed replica is started afresh. An engine an earlier agent left running for this
   * replica (the registry) is adopted when it is alive, holds this key and answers its health
   * check; otherwise it is stopped and the replica started anew. Throws `LaunchPlanError` for a spec
   * that is refused before anything runs, `EngineStartError` for an engine that did not come up.
   */
  async ensure(spec: LaunchSpec): Promise<ReplicaHandle> {
    const existing = this.#replicas.get(spec.replicaId);
    // Starting another engine beside one we cannot stop would only fight it for its card.
    if (existing?.stopRefused) throw existing.stopRefused;
    if (existing?.stopped) {
      await existing.stopped;
      return this.ensure(spec);
    }
    if (existing && existing.handle.state !== "failed") {
      if (existing.spec.model !== spec.model || existing.spec.engine !== spec.engine) {
        this.#log.warn("replica already runs with another model; keeping it", {
          replicaId: spec.replicaId,
          running: `${existing.spec.engine}/${existing.spec.model}`,
          asked: `${spec.engine}/${spec.model}`,
        });
      }
      if (existing.spec.apiKey !== spec.apiKey) {
        // The router will call with the new key, which the running engine would refuse.
        this.#log.info("replica asked for with another key; restarting it", {
          replicaId: spec.replicaId,
        });
        await this.stop(spec.replicaId);
        return this.ensure(spec);
      }
      await existing.settled;
      return existing.handle;
    }
    // Everything up to the map entry is synchronous, so a concurrent ensure sees this replica.
    const record = this.#registry.read().find((r) => r.replicaId === spec.replicaId);
    let replica: Replica;
    try {
      replica = prepareReplica(
        spec,
        this.#adapters,
        this.#workDir,
        this.#clock.now(),
        (host) => record?.port ?? this.#pickPort(host),
      );
    } catch (e) {
      if (e instanceof NoFreePortError) {
        throw new EngineStartError(spec.replicaId, spec.engine, e.message, "");
      }
      throw e;
    }
    this.#replicas.set(spec.replicaId, replica);
    replica.settled = record ? this.#adoptOrStart(replica, record) : this.#start(replica);
    try {
      await replica.settled;
    } catch (e) {
      if (!replica.stopping) this.#setState(replica, "failed");
      this.#saveRegistry();
      throw e;
    }
    return replica.handle;
  }

  /**
   * Stops the replica's whole process tree (SIGTERM, grace, SIGKILL) and forgets it. An unknown or
   * already-exited replica counts as stopped.
   */
  stop(replicaId: string): Promise<void> {
    const replica = this.#replicas.get(replicaId);
    if (!replica) return Promise.resolve();
    replica.stopped ??= this.#stop(replica);
    return replica.stopped;
  }

  async #stop(replica: Replica): Promise<void> {
    const replicaId = replica.spec.replicaId;
    replica.stopping = true;
    replica.wake?.();
    clearInterval(replica.watch);
    replica.health?.();
    const terminate = async () => {
      const cut = this.#hurry.signal;
      if (replica.proc) await replica.proc.terminate(this.#graceMs, cut);
      else if (replica.adopted) await stopRecorded(replica.adopted, this.#graceMs, cut);
    };
    try {
      await terminate();
      await replica.settled.catch(() => {});
      // A stop that came while an earlier engine was being judged for adoption, or before the new
      // one was spawned, found no process: the one adopted or spawned meanwhile must go too, or it
      // runs on, out of the registry, holding its GPU memory until someone kills it by hand.
      await terminate();
    } catch (e) {
      if (!(e instanceof StopRefusedError)) throw e;
      this.#stopRefused(replica, e);
      throw e;
    }
    if (this.#replicas.get(replicaId) === replica) this.#replicas.delete(replicaId);
    // The conversations it saved are of no use to another engine, and can be gigabytes.
    await removeSlotFiles(replica.dir);
    this.#setState(replica, "stopped");
    this.#saveRegistry();
    if (!this.#replicas.has(replicaId)) this.#keys.remove(replicaId);
    this.#log.info("engine stopped", { replicaId, engine: replica.spec.engine });
  }

  /**
   * Stops every replica, in parallel. Call on SIGINT/SIGTERM (see the module comment). An engine
   * that could not be stopped is logged (and reported) and does not keep the others or the agent
   * from stopping.
   */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#replicas.keys()].map((id) => this.stop(id)));
  }

  /**
   * The engine is still there and we may not signal it: the replica is failed with the reason, kept
   * (and in the registry, so an agent that may signal it stops it later), and a later stop tries
   * again rather than counting it as done.
   */
  #stopRefused(replica: Replica, e: StopRefusedError): void {
    replica.stopped = undefined;
    replica.stopRefused = e;
    replica.handle = { ...replica.handle, state: "failed", error: e.message };
    this.#emit(replica);
    this.#saveRegistry();
    this.#log.error("engine could not be stopped", {
      replicaId: replica.spec.replicaId,
      pid: e.pid,
      error: e.message,
    });
  }

  /**
   * Lets go of every engine without stopping it: the agent is about to exit and the next one
   * adopts them from the registry (which stays as it is). Nothing is watched or probed from now on.
   */
  detach(): void {
    for (const replica of this.#replicas.values()) {
      replica.stopping = true;
      replica.wake?.();
      clearInterval(replica.watch);
      replica.health?.();
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

  /** Every replica held, failed ones included until stopped or ensured again. */
  list(): ReplicaHandle[] {
    return [...this.#replicas.values()].map((s) => s.handle);
  }

  get(replicaId: string): ReplicaHandle | undefined {
    return this.#replicas.get(replicaId)?.handle;
  }

  /**
   * The last `lines` lines its engines printed (secrets hidden), across restarts. An engine an
   * earlier agent started and this one adopted prints into pipes that went with that agent:
   * `adopted` says so, as the lines begin only at this agent's own next start.
   */
  engineLog(replicaId: string, lines: number): { lines: string[]; adopted: boolean } | undefined {
    const replica = this.#replicas.get(replicaId);
    if (!replica) return undefined;
    return { lines: replica.log.lines(lines), adopted: replica.adopted !== undefined };
  }

  /**
   * The key a replica's engine was started with: the held replica's, or, for an engine an earlier agent
   * left running, the one kept for it (0600, see replica_keys.ts). Never logged or reported.
   */
  apiKey(replicaId: string): string | undefined {
    return this.#replicas.get(replicaId)?.spec.apiKey ?? this.#keys.read(replicaId);
  }

  /** Engines an earlier agent recorded and this one holds no replica for (candidates to adopt). */
  recorded(): ReplicaRecord[] {
    return this.#registry.read().filter((r) => !this.#replicas.has(r.replicaId));
  }

  /**
   * Progress from whatever the start waits on (a download, a load): the ready timeout counts from
   * the last progress, so a large model that keeps moving is not given up on, while one that stalls
   * is. No effect on a replica that is not starting.
   */
  touch(replicaId: string): void {
    const replica = this.#replicas.get(replicaId);
    if (replica && (replica.handle.state === "starting" || replica.handle.state === "restarting")) {
      replica.lastProgress = Date.now();
    }
  }

  /** One readiness check of the replica's engine, as its adapter is probed. */
  #probe(replica: Replica): (timeoutMs: number) => Promise<boolean> {
    const { adapter, handle, spec } = replica;
    if (adapter.probe === "running") return () => Promise.resolve(true);
    if (adapter.probe === "tcp") return (timeoutMs) => tcpAnswers(handle.port, timeoutMs);
    const isReady = (status: number, body: string) => adapter.isReady(status, body);
    return healthProbe(this.#fetch, handle.baseUrl + adapter.healthPath, spec.apiKey, isReady);
  }

  /**
   * The engine's load from its Prometheus endpoint, time-boxed and size-bounded. A replica that is
   * not ready, an engine that does not answer, or a page without the dialect's names is unknown
   * load. Never throws.
   */
  readLoad(replicaId: string): Promise<LoadSnapshot> {
    const readAt = this.#clock.now();
    const replica = this.#replicas.get(replicaId);
    if (!replica || replica.handle.state !== "ready" || replica.adapter.probe) {
      return Promise.resolve(unknownLoad(readAt));
    }
    const { baseUrl } = replica.handle;
    return readEngineLoad(this.#fetch, baseUrl, replica.adapter, replica.spec.apiKey, readAt);
  }

  /**
   * Stops engines that a previous agent on this work directory recorded and left running. Call once
   * at start, before the first ensure. Returns how many were stopped.
   */
  async reapOrphans(): Promise<number> {
    const records = this.#registry.read().filter((r) => !this.#replicas.has(r.replicaId));
    const reaped = await reapOrphans(records, this.#graceMs, this.#log);
    this.#saveRegistry();
    for (const r of records) if (!this.#replicas.has(r.replicaId)) this.#keys.remove(r.replicaId);
    return reaped;
  }

  #pickPort(host: string): number {
    const taken = new Set([...this.#replicas.values()].map((s) => s.handle.port));
    for (const r of this.#registry.read()) taken.add(r.port);
    return this.#ports.pick(host, taken);
  }

  /** The registry names an engine for this replica: take it over if it is sound, else replace it. */
  async #adoptOrStart(replica: Replica, record: ReplicaRecord): Promise<void> {
    const { spec } = replica;
    const verdict = await judgeRecord(record, {
      spec,
      baseUrl: replica.handle.baseUrl,
      storedKey: this.#keys.read(spec.replicaId),
      ...(this.#adoptProbeMs !== undefined ? { probeTimeoutMs: this.#adoptProbeMs } : {}),
      probe: this.#probe(replica),
    });
    if (verdict.adopt) {
      const stat = readStat(record.pid);
      replica.adopted = {
        pid: record.pid,
        ...(stat?.startTime !== undefined ? { procStart: stat.startTime } : {}),
      };
      replica.handle = { ...replica.handle, pid: record.pid, startedAt: record.startedAt };
      replica.readySince = this.#clock.now();
      this.#setState(replica, "ready");
      this.#saveRegistry();
      this.#watchAdopted(replica);
      this.#watchHealth(replica);
      this.#log.info("adopted an engine an earlier agent started", {
        replicaId: spec.replicaId,
        pid: record.pid,
      });
      return;
    }
    this.#log.info("not adopting the recorded engine", {
      replicaId: spec.replicaId,
      pid: record.pid,
      reason: verdict.reason,
    });
    if (verdict.kill) await stopRecorded(verdict.kill, this.#graceMs);
    const host = spec.host ?? "127.0.0.1";
    if (!spec.port && !isFree(host, replica.handle.port)) {
      const port = this.#pickPort(host);
      replica.plan = planFor(spec, replica.adapter, host, port);
      replica.handle = {
        ...replica.handle,
        port,
        baseUrl: replica.handle.baseUrl.replace(/:\d+$/, `:${port}`),
      };
    }
    await this.#start(replica);
  }

  /** An adopted engine is not our child: no exit event comes, so its life is polled. */
  #watchAdopted(replica: Replica): void {
    const adopted = replica.adopted;
    if (!adopted) return;
    replica.watch = setInterval(() => {
      if (replica.stopping || replica.adopted !== adopted) return clearInterval(replica.watch);
      const stat = readStat(adopted.pid);
      const alive = stat && stat.state !== "Z" &&
        (adopted.procStart === undefined || stat.startTime === adopted.procStart);
      if (alive) return;
      clearInterval(replica.watch);
      if (!running(replica)) return;
      replica.health?.();
      this.#log.warn("adopted engine exited unexpectedly", {
        replicaId: replica.spec.replicaId,
        pid: adopted.pid,
      });
      replica.settled = this.#recover(replica, () => stopRecorded(adopted, this.#graceMs), "");
      replica.settled.catch(() => {});
    }, this.#watchMs);
    Deno.unrefTimer(replica.watch);
  }

  /** One attempt: spawn, wait for ready. On failure the process tree is gone when this throws. */
  async #start(replica: Replica): Promise<void> {
    const { spec } = replica;
    const plan = replica.plan;
    replica.adopted = undefined;
    clearInterval(replica.watch);
    replica.health?.();
    try {
      await Deno.mkdir(replica.dir, { recursive: true });
      this.#keys.write(spec.replicaId, spec.apiKey);
    } catch (e) {
      throw this.#startError(replica, `could not create ${replica.dir}: ${String(e)}`, "");
    }
    if (replica.stopping) throw this.#startError(replica, "was stopped while starting", "");
    let proc: EngineProcess;
    try {
      const launch = this.#runAs
        ? runAsPlan(this.#runAs, plan.cmd, plan.args)
        : { cmd: plan.cmd, args: plan.args };
      proc = EngineProcess.spawn({
        cmd: launch.cmd,
        args: launch.args,
        env: replicaEnv(replica),
        cwd: replica.dir,
        secrets: [spec.apiKey],
        log: replica.log,
      });
    } catch (e) {
      const reason = e instanceof Deno.errors.NotFound
        ? `could not start: ${plan.cmd} was not found`
        : `could not start: ${e instanceof Error ? e.message : String(e)}`;
      throw this.#startError(replica, reason, "");
    }
    replica.proc = proc;
    replica.log.note(`[llmgw] engine started, pid ${proc.pid}`);
    replica.handle = { ...replica.handle, pid: proc.pid, startedAt: this.#clock.now() };
    this.#emit(replica);
    this.#saveRegistry();
    this.#log.info("engine starting", {
      replicaId: spec.replicaId,
      engine: spec.engine,
      model: spec.model,
      pid: proc.pid,
      port: replica.handle.port,
    });
    this.#log.debug("engine command", {
      replicaId: spec.replicaId,
      cmd: plan.cmd,
      args: plan.args,
    });
    proc.exited.then((status) => {
      replica.log.note(`[llmgw] engine pid ${proc.pid} ${describeExit(status)}`);
      this.#onExit(replica, proc, status);
    });

    const probe = this.#probe(replica);
    const timeoutMs = spec.readyTimeoutMs ?? defaults.readyTimeoutMs;
    replica.lastProgress = Date.now();
    const failure = replica.stopping ? "was stopped while starting" : await proc.waitReady(
      probe,
      () => replica.lastProgress + timeoutMs,
      timeoutMs,
      spec.pollIntervalMs ?? defaults.pollIntervalMs,
    );
    if (failure !== undefined || replica.stopping) {
      await proc.terminate(this.#graceMs);
      const reason = replica.stopping ? "was stopped while starting" : failure ?? "";
      const err = this.#startError(replica, reason, proc.tail.text());
      this.#log.warn("engine did not start", { replicaId: spec.replicaId, error: err.message });
      throw err;
    }
    replica.readySince = this.#clock.now();
    this.#setState(replica, "ready");
    this.#watchHealth(replica);
    this.#log.info("engine ready", { replicaId: spec.replicaId, pid: proc.pid });
    const notes = replica.adapter.readyNotes?.(proc.tail.text()) ?? [];
    if (notes.length) this.#log.info("engine placed parts on other nodes", { notes });
  }

  /**
   * Probes a ready engine's health route (health_watch.ts): unhealthy is reported (the router
   * stops sending it requests), recovered is ready again, and a hung one is stopped and restarted
   * with the crash backoff.
   */
  #watchHealth(replica: Replica): void {
    replica.health?.();
    if (this.#healthMs <= 0) return;
    const { proc, adopted } = replica;
    const replicaId = replica.spec.replicaId;
    replica.health = watchHealth({
      probe: this.#probe(replica),
      intervalMs: this.#healthMs,
      failures: this.#healthFailures,
      current: () =>
        !replica.stopping && replica.proc === proc && replica.adopted === adopted &&
        running(replica),
      onUnhealthy: (failures) => {
        this.#setState(replica, "unhealthy");
        this.#log.warn("engine fails its health check; out of routing", { replicaId, failures });
      },
      onRecovered: () => {
        this.#setState(replica, "ready");
        this.#log.info("engine answers its health check again", { replicaId });
      },
      onHung: (failures) => {
        this.#log.warn("engine did not recover; restarting it", { replicaId, failures });
        const cleanUp = proc
          ? () => proc.terminate(this.#graceMs)
          : adopted
          ? () => stopRecorded(adopted, this.#graceMs)
          : () => Promise.resolve();
        // Not "unhealthy" while it is killed, or its exit would count as a crash and start a
        // second recovery beside this one.
        this.#setState(replica, "restarting");
        replica.settled = this.#recover(replica, cleanUp, proc?.tail.text() ?? "");
        replica.settled.catch(() => {});
      },
    });
  }

  #onExit(replica: Replica, proc: EngineProcess, status: Deno.CommandStatus): void {
    // Exits while starting are the start attempt's to report; stops are expected.
    if (replica.proc !== proc || replica.stopping || !running(replica)) return;
    replica.health?.();
    this.#log.warn("engine exited unexpectedly", {
      replicaId: replica.spec.replicaId,
      pid: proc.pid,
      exit: describeExit(status),
      output: proc.tail.text().split("\n").slice(-5).join("\n"),
    });
    replica.settled = this.#recover(replica, () => proc.terminate(this.#graceMs), proc.tail.text());
    replica.settled.catch(() => {});
  }

  /** Restarts a crashed replica with exponential backoff and jitter, until ready or out of tries. */
  async #recover(
    replica: Replica,
    cleanUp: () => Promise<void>,
    crashOutput: string,
  ): Promise<void> {
    // Whatever the engine left behind in its group holds the port and memory the restart needs.
    await cleanUp();
    const policy = replica.spec.restart ?? defaults.restart;
    if (this.#clock.now() - replica.readySince >= defaults.stableAfterMs) replica.attempts = 0;
    let last: unknown;
    while (replica.attempts < policy.maxAttempts && !replica.stopping) {
      replica.attempts++;
      replica.handle = { ...replica.handle, restarts: replica.handle.restarts + 1 };
      this.#setState(replica, "restarting");
      const delay = backoffDelay(replica.attempts, policy.baseDelayMs, defaults.maxRestartDelayMs);
      const sleep = wakeableSleep(delay);
      replica.wake = sleep.wake;
      await sleep.done;
      if (replica.stopping) break;
      try {
        await this.#start(replica);
        return;
      } catch (e) {
        last = e;
      }
    }
    if (replica.stopping) throw this.#startError(replica, "was stopped while restarting", "");
    this.#setState(replica, "failed");
    this.#saveRegistry();
    const error = last instanceof Error ? last.message : undefined;
    this.#log.error("engine gave up restarting", { replicaId: replica.spec.replicaId, error });
    throw last ?? this.#startError(replica, "crashed and may not restart", crashOutput);
  }

  #startError(replica: Replica, reason: string, output: string): EngineStartError {
    return new EngineStartError(replica.spec.replicaId, replica.spec.engine, reason, output);
  }

  #setState(replica: Replica, state: ReplicaState): void {
    replica.handle = { ...replica.handle, state };
    this.#emit(replica);
  }

  #emit(replica: Replica): void {
    try {
      this.#onChange(replica.handle);
    } catch (e) {
      this.#log.error("onChange listener threw", { error: e instanceof Error ? e : String(e) });
    }
  }

  #saveRegistry(): void {
    const records = [...this.#replicas.values()]
      .filter((s) =>
        (s.proc ? !s.proc.status : s.adopted !== undefined) && s.handle.state !== "stopped"
      )
      .map(replicaRecord);
    try {
      Deno.mkdirSync(this.#workDir, { recursive: true });
      this.#registry.write(records);
    } catch (e) {
      this.#log.warn("could not write the replica registry", {
        error: e instanceof Error ? e : "",
      });
    }
  }
}

/** Ready, or ready once and now hung: an exit or a failed probe is then the watcher's to handle. */
function running(replica: Replica): boolean {
  return replica.handle.state === "ready" || replica.handle.state === "unhealthy";
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
