/**
 * The agent: a node's one long-running process. It keeps the control channel open, runs the
 * engines it is told to through the Supervisor, reports the machine and every replica in a
 * heartbeat, and reports each replica's state change the moment it happens.
 *
 * Built apart from started: `new Agent(deps)` does nothing; `start()` reads the hardware, opens the
 * channel and begins heartbeats; `stop()` stops engines and closes the channel.
 */
import type { Logger } from "../core/log.ts";
import type { EngineInstalled, GpuReport } from "../core/protocol/host_report.ts";
import {
  agentFeatures,
  type AgentMessage,
  protocolVersion,
  type ReplicaReport,
  type ReplicaSpec,
  type ServerMessage,
} from "../core/protocol/messages.ts";
import { VERSION } from "../core/version.ts";
import { traitsOf } from "../core/engines/engine_traits.ts";
import type { AgentConfig } from "./agent_config.ts";
import { parseLabels, settingText, splitUrls } from "./agent_config.ts";
import { clusterMirrors } from "../core/weights/cluster_mirrors.ts";
import { ControlChannel } from "./channel/control_channel.ts";
import { builtinAdapters } from "./engines/builtin_adapters.ts";
import { EngineStartError } from "./engine_start_error.ts";
import { attributeGpuProcesses } from "./hardware/gpu_process_owner.ts";
import { GpuMonitor } from "./hardware/gpu_monitor.ts";
import { readHostInfo } from "./hardware/host_info.ts";
import { offered } from "./hardware/offered_memory.ts";
import { openGpuProbe } from "./hardware/open_gpu_probe.ts";
import type { LaunchSpec, ReplicaHandle } from "./launch_spec.ts";
import type { EngineProfile, SetProfile } from "./engines/engine_adapter.ts";
import { ownRunAsProblems } from "./run_as_capabilities.ts";
import { Supervisor } from "./supervisor.ts";
import { parsePortRange } from "./port_picker.ts";
import { systemClock } from "../core/clock.ts";
import { type NodeWeights, nodeWeights } from "./weights/mod.ts";
import { WeightsCommands } from "./weights_commands.ts";
import { sweepSlotFiles } from "./slot_files.ts";
import { SetTunnels } from "./tunnel/set_tunnels.ts";
import { EpochFence } from "./epoch_fence.ts";

/** The placement's profile and cards from a start command, as the supervisor takes them. */
export function launchProfile(spec: ReplicaSpec): Pick<LaunchSpec, "profile" | "gpus"> {
  const l = spec.launch;
  if (!l) return {};
  const { gpus, ...rest } = l;
  // zod leaves absent keys out, so what remains is exactly what was sent.
  const profile = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined),
  ) as EngineProfile;
  return { profile, ...(gpus ? { gpus } : {}) };
}

export interface AgentDeps {
  config: AgentConfig;
  credential: string;
  caPem: string;
  logger: Logger;
}

export class Agent {
  readonly #d: AgentDeps;
  readonly #log: Logger;
  readonly #supervisor: Supervisor;
  readonly #weights: NodeWeights;
  /** Trusts the cluster CA only: the credential goes to this node's control planes alone. */
  #clusterClient: Deno.HttpClient | undefined;
  readonly #weightsCommands: WeightsCommands;
  readonly #errors = new Map<string, string>();
  readonly #sets: SetTunnels;
  #channel: ControlChannel | undefined;
  #gpu: GpuMonitor | undefined;
  #heartbeatMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #welcomed = false;
  readonly #fence = new EpochFence();
  #engines: EngineInstalled[] | undefined;
  #detectTimer: ReturnType<typeof setInterval> | undefined;
  #stopping = false;
  readonly #ended = Promise.withResolvers<{ revoked: boolean; reason: string }>();
  nodeId: string | undefined;
  #slotFiles: { stop(): void } | undefined;

  constructor(deps: AgentDeps) {
    this.#d = deps;
    this.#log = deps.logger;
    this.#heartbeatMs = deps.config.heartbeatMs;
    this.#sets = new SetTunnels(deps.logger.child({ part: "tunnel" }));
    const ports = deps.config.enginePorts.trim();
    this.#supervisor = new Supervisor({
      logger: deps.logger.child({ part: "supervisor" }),
      adapters: builtinAdapters,
      workDir: `${deps.config.dataDir}/engines`,
      ...(deps.config.engineRunAs ? { runAs: deps.config.engineRunAs } : {}),
      ...(ports ? { portRange: parsePortRange(ports) } : {}),
      healthIntervalMs: deps.config.engineHealthIntervalMs,
      healthFailures: deps.config.engineHealthFailures,
      onChange: (h) => this.#channel?.send({ type: "replica_state", replica: this.#report(h) }),
    });
    const c = deps.config;
    this.#weights = nodeWeights({
      fetch,
      clock: systemClock,
      logger: deps.logger.child({ part: "weights" }),
      weightsDir: c.weightsDir || `${c.dataDir}/weights`,
      ...(c.hfEndpoint.trim() ? { hub: { endpoint: c.hfEndpoint.trim() } } : {}),
      mirrorToken: deps.credential,
      mirrorFetch: (input, init) => {
        this.#clusterClient ??= Deno.createHttpClient({ caCerts: [deps.caPem] });
        return fetch(input, { ...init, client: this.#clusterClient });
      },
    });
    this.#weightsCommands = new WeightsCommands({
      weights: this.#weights,
      send: (m) => this.#channel?.send(m),
      touch: (replicaId) => this.#supervisor.touch(replicaId),
      // The control planes this node dials keep the mirror, so a node needs no route to the hub.
      mirrors: clusterMirrors(splitUrls(c.controlUrls)),
    });
  }

  /** Resolves when the agent ends on its own: its credential was refused. */
  get ended(): Promise<{ revoked: boolean; reason: string }> {
    return this.#ended.promise;
  }

  async start(): Promise<void> {
    const c = this.#d.config;
    const urls = splitUrls(c.controlUrls);
    if (urls.length === 0) {
      throw new TypeError(
        "no control plane: set control_urls in agent.yaml or pass --control-urls",
      );
    }
    await Deno.mkdir(`${c.dataDir}/engines`, { recursive: true });
    this.#gpu = new GpuMonitor(
      await openGpuProbe({ nvmlLibrary: c.nvmlLibrary, nvidiaSmi: c.nvidiaSmi }),
      c.sampleIntervalMs,
    );
    await this.#gpu.start();
    await this.#detectEngines();
    // Engines get installed and upgraded while the agent runs.
    this.#detectTimer = setInterval(() => this.#detectEngines(), 300_000);
    this.#slotFiles = sweepSlotFiles(
      `${c.dataDir}/engines/replicas`,
      { maxBytes: c.slotFilesMaxMb * 1024 ** 2, maxAgeMs: c.slotFilesMaxAgeMin * 60_000 },
      60_000,
      (dir, removed) => this.#log.info("saved conversation caches pruned", { dir, ...removed }),
    );
    const labels = parseLabels(c.labels);
    this.#channel = new ControlChannel({
      urls,
      credential: this.#d.credential,
      caPem: this.#d.caPem,
      logger: this.#log.child({ part: "channel" }),
      idleMs: c.idleMs,
      answerMs: c.answerMs,
      reconnectMaxMs: c.reconnectMaxMs,
      hello: (): AgentMessage => ({
        type: "hello",
        protocol: protocolVersion,
        version: VERSION,
        name: this.#name(),
        labels,
        features: Object.values(agentFeatures),
      }),
      onMessage: (m) => this.#onMessage(m),
      onRevoked: (reason) => this.#revoked(reason),
    });
    this.#channel.start();
    this.#scheduleHeartbeat();
  }

  /** Engines stopped from now on get no grace (a second Ctrl-C); see Supervisor.hurry. */
  hurry(): void {
    this.#supervisor.hurry();
  }

  /**
   * `keepEngines`: the agent goes and its engines stay, for the next agent to adopt (a restart,
   * an upgrade: what SIGTERM from systemd means); otherwise they are stopped first.
   */
  async stop(opts: { keepEngines?: boolean } = {}): Promise<void> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    this.#slotFiles?.stop();
    clearInterval(this.#detectTimer);
    if (opts.keepEngines) this.#supervisor.detach();
    else await this.#supervisor.stopAll();
    await this.#sets.closeAll();
    // Fetches stop; their .part files stay for the next start to resume.
    await this.#weights.close();
    this.#clusterClient?.close();
    await this.#channel?.close(opts.keepEngines ? "restarting" : "stopping");
    await this.#gpu?.stop();
  }

  #binary(engine: string, role?: "head" | "worker"): string | undefined {
    const t = traitsOf(engine);
    const setting = role === "worker" ? t?.workerBinarySetting : t?.binarySetting;
    return setting ? settingText(this.#d.config, setting) : undefined;
  }

  /** Which engines this node can run, with versions; one that is missing is left out. */
  async #detectEngines(): Promise<void> {
    const found: EngineInstalled[] = [];
    for (const [name, adapter] of Object.entries(builtinAdapters)) {
      const binary = this.#binary(name);
      const d = await adapter.detect(binary ? { binary } : {});
      if (d.installed) {
        found.push({ name, binary: d.binary, ...(d.version ? { version: d.version } : {}) });
      }
    }
    this.#engines = found;
  }

  #name(): string {
    if (this.#d.config.name) return this.#d.config.name;
    try {
      return Deno.hostname();
    } catch {
      return "node";
    }
  }

  #onMessage(m: ServerMessage): void {
    if ("epoch" in m && !this.#fence.admit(m.epoch)) return this.#refuseDeposed(m, m.epoch!);
    switch (m.type) {
      case "welcome": {
        this.nodeId = m.nodeId;
        this.#sets.identity = m.tunnel ? { ...m.tunnel, caPem: this.#d.caPem } : undefined;
        this.#heartbeatMs = m.heartbeatMs;
        const first = !this.#welcomed;
        this.#welcomed = true;
        for (const spec of m.replicas) this.#start(undefined, spec);
        // Engines an earlier agent left running that this node is no longer meant to run. Only
        // once the desired replicas were ensured (registered synchronously above), so those adopt.
        if (first) {
          this.#supervisor.reapOrphans().then((n) => {
            if (n > 0) this.#log.warn("stopped engines left from an earlier run", { count: n });
          });
        }
        this.#sendHeartbeat();
        return;
      }
      case "start_replica":
        return this.#start(m.id, m.spec);
      case "stop_replica":
        this.#errors.delete(m.replicaId);
        this.#supervisor.stop(m.replicaId).finally(() => this.#sets.close(m.replicaId)).then(
          () => this.#result(m.id, { ok: true }),
          (e) =>
            this.#result(m.id, { ok: false, error: e instanceof Error ? e.message : String(e) }),
        );
        return;
      case "fetch_weights":
        this.#weightsCommands.fetch(m);
        return;
      case "remove_weights":
        this.#weightsCommands.remove(m);
        return;
      case "engine_log": {
        const log = this.#supervisor.engineLog(m.replicaId, m.lines);
        this.#channel?.send({
          type: "engine_log_lines",
          id: m.id,
          replicaId: m.replicaId,
          found: log !== undefined,
          lines: log?.lines ?? [],
          ...(log?.adopted ? { adopted: true } : {}),
        });
        return;
      }
      case "pong":
      case "ping":
        return;
    }
  }

  /**
   * A welcome or command from a leader older than one this node has heard: nothing of it is done,
   * a command is answered as refused, and the channel goes on to the next control plane.
   */
  #refuseDeposed(m: Exclude<ServerMessage, { type: "ping" | "pong" }>, epoch: number): void {
    const why = `refused: leader epoch ${epoch} is older than epoch ${this.#fence.highest}, ` +
      `which this node has heard; that control plane no longer leads`;
    this.#log.warn("refused a deposed leader's message", {
      type: m.type,
      epoch,
      highest: this.#fence.highest,
    });
    if (m.type !== "welcome") this.#result(m.id, { ok: false, error: why });
    this.#channel?.leave(why);
  }

  #start(commandId: string | undefined, spec: ReplicaSpec): void {
    this.#errors.delete(spec.replicaId);
    // Registered synchronously (a welcome's replicas must be known before orphans are reaped);
    // only a set member waits for its tunnel first.
    if (!spec.launch?.set) return this.#ensure(commandId, spec, this.#launch(spec));
    const port = () => this.#supervisor.get(spec.replicaId)?.port;
    this.#sets.open(spec, this.#d.config.engineHost, port).then(
      (set) => this.#ensure(commandId, spec, this.#launch(spec, set)),
      (e) => this.#failed(commandId, spec, e instanceof Error ? e.message : String(e), ""),
    );
  }

  /** The spec as the supervisor takes it; a set member's with its tunnel's addresses. */
  #launch(spec: ReplicaSpec, set?: SetProfile): LaunchSpec {
    const c = this.#d.config;
    const role = spec.launch?.set?.role;
    const binary = this.#binary(spec.engine, role);
    const version = this.#engines?.find((e) => e.name === spec.engine)?.version;
    const placed = launchProfile(spec);
    return {
      replicaId: spec.replicaId,
      model: spec.model,
      engine: spec.engine,
      ...(spec.modelPath ? { modelPath: spec.modelPath } : {}),
      ...(binary ? { binary } : {}),
      ...(version ? { version } : {}),
      args: spec.args,
      apiKey: spec.apiKey,
      // A worker's engine has no authentication: loopback only, its agent's tunnel in front.
      host: role === "worker" ? "127.0.0.1" : c.engineHost,
      readyTimeoutMs: spec.readyTimeoutMs ?? c.engineReadyTimeoutMs,
      ...placed,
      ...(set ? { profile: { ...placed.profile, set } } : {}),
    };
  }

  #ensure(commandId: string | undefined, spec: ReplicaSpec, launch: LaunchSpec): void {
    this.#supervisor.ensure(launch).then(
      (h) => {
        if (commandId) this.#result(commandId, { ok: true, replica: this.#report(h) });
      },
      (e) => {
        const output = e instanceof EngineStartError ? e.output : "";
        this.#failed(commandId, spec, e instanceof Error ? e.message : String(e), output);
      },
    );
  }

  #failed(commandId: string | undefined, spec: ReplicaSpec, error: string, output: string): void {
    const full = output.trim() ? `${error}\n--- engine output ---\n${output.trimEnd()}` : error;
    this.#errors.set(spec.replicaId, full);
    this.#log.warn("replica did not start", { replicaId: spec.replicaId, error });
    const h = this.#supervisor.get(spec.replicaId);
    const replica: ReplicaReport = h ? this.#report(h) : {
      replicaId: spec.replicaId,
      model: spec.model,
      engine: spec.engine,
      state: "failed",
      baseUrl: "",
      pid: 0,
      error: full,
    };
    if (commandId) {
      this.#result(commandId, { ok: false, error: full, ...(output ? { output } : {}), replica });
    } else this.#channel?.send({ type: "replica_state", replica });
  }

  #result(
    id: string,
    r: { ok: boolean; error?: string; output?: string; replica?: ReplicaReport },
  ) {
    this.#channel?.send({ type: "command_result", id, ...r });
  }

  #report(h: ReplicaHandle): ReplicaReport {
    const error = h.error ?? this.#errors.get(h.replicaId);
    const tunnel = this.#sets.workerAddress(h.replicaId);
    return {
      replicaId: h.replicaId,
      model: h.model,
      engine: h.engine,
      state: h.state,
      // A worker is reached by its head through the tunnel, never by the router.
      baseUrl: tunnel ? `tls://${tunnel}` : h.baseUrl,
      ...(tunnel ? { role: "worker" as const } : {}),
      pid: h.pid,
      restarts: h.restarts,
      startedAt: h.startedAt,
      ...(h.slots !== undefined ? { slots: h.slots } : {}),
      ...(error && h.state !== "ready" ? { error } : {}),
    };
  }

  #scheduleHeartbeat(): void {
    if (this.#stopping) return;
    this.#timer = setTimeout(async () => {
      await this.#sendHeartbeat().catch((e) =>
        this.#log.error("heartbeat failed", { error: e as Error })
      );
      this.#scheduleHeartbeat();
    }, this.#heartbeatMs);
  }

  async #sendHeartbeat(): Promise<void> {
    if (!this.#channel?.connected || !this.#welcomed) return;
    const c = this.#d.config;
    const handles = this.#supervisor.list();
    const replicas = await Promise.all(handles.map(async (h) => {
      const r = this.#report(h);
      if (h.state !== "ready") return r;
      return { ...r, load: await this.#supervisor.readLoad(h.replicaId) };
    }));
    const warnings: string[] = ownRunAsProblems(c.engineRunAs);
    let gpu: GpuReport | undefined = this.#gpu?.latest();
    if (gpu) {
      gpu = attributeGpuProcesses(
        gpu,
        handles.map((h) => ({ replicaId: h.replicaId, pid: h.pid })),
      );
      if (gpu.error) warnings.push(`GPUs: ${gpu.error}`);
      for (const w of gpu.warnings ?? []) warnings.push(`GPUs: ${w}`);
    }
    this.#channel.send({
      type: "heartbeat",
      host: offered(
        readHostInfo({
          weightsDir: c.weightsDir || `${c.dataDir}/weights`,
          enginesDir: `${c.dataDir}/engines`,
        }),
        c.memoryOfferedMb,
      ),
      ...(gpu ? { gpu } : {}),
      ...(this.#engines ? { engines: this.#engines } : {}),
      replicas,
      warnings,
    });
  }

  async #revoked(reason: string): Promise<void> {
    await this.#sets.closeAll();
    this.#log.error("the control plane refused this node's credential; stopping", { reason });
    await this.#supervisor.stopAll();
    this.#ended.resolve({ revoked: true, reason });
  }
}
