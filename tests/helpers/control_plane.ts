/**
 * A real control plane in-process on loopback ports (client, cluster TLS, metrics), its data
 * directory made by `init`. `startTestControlPlane` adds an in-process sim engine as the `demo`
 * model's one replica and an API key: for tests of what an operator sees (metrics, logs,
 * notifications, backups). `startClusterControlPlane` has no replica of its own: for end-to-end
 * tests whose agents join as real processes and serve what the reconciler places.
 */
import { assertEquals } from "../assert.ts";
import { eventually, type LlmgwProcess, spawnLlmgw } from "./llmgw_process.ts";
import { createLogger, LevelControl, type Logger } from "../../core/log.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import type { Command } from "../../core/command.ts";
import { ctlCommand } from "../../server/cli/ctl/mod.ts";
import { loadServerConfig, type ServerConfig } from "../../server/wiring/config.ts";
import { type ControlPlane, startControlPlane } from "../../server/wiring/serve.ts";
import { initDataDir } from "../../server/wiring/init_data_dir.ts";
import { copyDataDir } from "../../server/cli/store_command.ts";
import { type RunningSimEngine, startSimEngine } from "../../agent/sim_engine/serve.ts";

export interface TestControlPlane {
  cp: ControlPlane;
  dir: string;
  key: string;
  adminToken: string;
  caPem: string;
  engine: RunningSimEngine;
  lines: string[];
  /** The root logger's level, which a live `log_level` change moves. */
  logLevel: LevelControl;
  chat(body: Record<string, unknown>, headers?: Record<string, string>): Promise<Response>;
  admin(path: string, init?: RequestInit): Promise<Response>;
  close(opts?: { keepDir?: boolean }): Promise<void>;
}

export async function startTestControlPlane(
  opts: {
    flags?: Record<string, string>;
    logger?: Logger;
    dir?: string;
    /** A PostgreSQL store: the new data directory's store is copied there, as an operator would. */
    storeUrl?: string;
    /** The environment the settings read (none by default). */
    env?: Record<string, string>;
  } = {},
): Promise<TestControlPlane> {
  const dir = opts.dir ?? await Deno.makeTempDir({ prefix: "llmgw-cp-" });
  const lines: string[] = [];
  const logLevel = new LevelControl("debug");
  const logger = opts.logger ?? createLogger({ sink: (l) => lines.push(l), level: logLevel });
  await initDataDir(dir, { clock: systemClock });
  if (opts.storeUrl) await copyDataDir(dir, opts.storeUrl);
  const config = await loadServerConfig({
    flags: {
      data: dir,
      listen: "127.0.0.1:0",
      "cluster-listen": "127.0.0.1:0",
      "metrics-listen": "127.0.0.1:0",
      "usage-flush-interval-ms": "50",
      portal: "false",
      ...(opts.storeUrl ? { "store-url": opts.storeUrl } : {}),
      ...(opts.flags ?? {}),
    },
    env: opts.env ?? {},
  });
  const cp = await startControlPlane(config, { logger, logLevel });
  const engine = await startSimEngine({ model: "demo", tokensPerSecond: 5000, apiKey: "eng" });
  await cp.deps.catalog.upsert({ name: "demo", engine: "sim", source: "" });
  cp.deps.replicas.upsert({
    id: "local/demo",
    model: "demo",
    baseUrl: engine.url,
    apiKey: "eng",
    state: "ready",
  });
  const { key } = await cp.deps.keys.create({ name: "test" });
  const adminToken = (await Deno.readTextFile(`${dir}/admin.token`)).trim();
  const caPem = await Deno.readTextFile(`${dir}/tls/ca.pem`);
  return {
    cp,
    dir,
    key,
    adminToken,
    caPem,
    engine,
    lines,
    logLevel,
    chat: (body, headers = {}) =>
      fetch(`${cp.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    admin: (path, init = {}) =>
      fetch(`${cp.url}/api/v1/${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${adminToken}`,
          "content-type": "application/json",
          ...(init.headers ?? {}),
        },
      }),
    async close(o = {}) {
      await cp.close();
      await engine.close();
      if (!o.keepDir) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The admin API as JSON: `admin("GET", "nodes")` answers the status and the parsed body. */
export function adminJson(url: string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v1/${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };
}

/** Runs a CLI command in this process against `url`, keeping what it prints. */
export async function runCommand(
  cmd: Command,
  args: string[],
  url: string,
  token: string,
): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => out.push(a.join(" "));
  try {
    const code = await cmd.run([...args, "--url", url, "--token", token]);
    return { code, text: out.join("\n") };
  } finally {
    console.log = log;
  }
}

/** A four-token chat completion for `model` through `url`'s /v1, sent with `key`. */
export function shortChat(
  url: string,
  key: string,
  model: string,
  extra: Record<string, unknown> = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model,
      max_tokens: 4,
      messages: [{ role: "user", content: "hello" }],
      ...extra,
    }),
  });
}

/**
 * Node and reconciler timings short enough for an end-to-end test: heartbeats, channel pings and
 * reconcile passes in fractions of a second, usage written at once.
 */
export const quickClusterFlags: Readonly<Record<string, string>> = {
  "nodes-heartbeat-ms": "300",
  "nodes-channel-idle-ms": "1000",
  "nodes-channel-answer-ms": "1000",
  "reconciler-interval-ms": "300",
  "usage-flush-interval-ms": "50",
};

/** A replica as `GET /api/v1/replicas` lists it: the fields the end-to-end tests read. */
export interface ReplicaJson {
  id: string;
  model: string;
  node: string;
  state: string;
  gpus: number[];
  ramBytes: number;
  cores: number;
  fetched?: { bytes: number; total?: number; percent?: number };
}

export interface ClusterControlPlane {
  cp: ControlPlane;
  /** What it was started with (what `up` hands its own node too). */
  config: ServerConfig;
  /** The test's temporary folder: the control plane's data is in `cp/`, each agent's in its name. */
  root: string;
  url: string;
  token: string;
  /** The control plane's log lines (when no logger was given). */
  logs: string[];
  /** Its logger, for what runs beside it (`up`'s own node). */
  logger: Logger;
  admin: ReturnType<typeof adminJson>;
  /** `llmgw ctl …` in this process, its printed lines kept. */
  ctl(...args: string[]): Promise<{ code: number; text: string }>;
  /**
   * Joins `llmgw join` as a child process named `name`, with no GPU unless `nvml` names a
   * library; `args` are its further flags.
   */
  joinAgent(
    name: string,
    opts?: {
      labels?: Record<string, string>;
      nvml?: string;
      args?: string[];
      env?: Record<string, string>;
    },
  ): Promise<LlmgwProcess>;
  /** The agents joined so far, in order. */
  agents: LlmgwProcess[];
  /** The replicas of `model` as the admin API lists them. */
  replicas(model: string): Promise<ReplicaJson[]>;
  /** Waits for a ready replica of `model`, adding every state seen on the way to `seen`. */
  readyReplica(model: string, timeoutMs?: number, seen?: Set<string>): Promise<ReplicaJson>;
  /** Adds a model from its YAML, asserting it was accepted. */
  addModel(yaml: string): Promise<void>;
  /** A short chat completion for `model` with `key`. */
  chat(key: string, model: string, extra?: Record<string, unknown>): Promise<Response>;
  /** Stops the agents (SIGTERM), the control plane, and removes `root`. */
  close(): Promise<void>;
}

export async function startClusterControlPlane(
  root: string,
  opts: { flags: Record<string, string>; clock?: Clock; logger?: Logger },
): Promise<ClusterControlPlane> {
  const dir = `${root}/cp`;
  await initDataDir(dir, { clock: systemClock });
  const config = await loadServerConfig({
    flags: {
      listen: "127.0.0.1:0",
      "cluster-listen": "127.0.0.1:0",
      portal: "false",
      ...opts.flags,
    },
    env: { LLMGW_DATA: dir },
  });
  const logs: string[] = [];
  const logger = opts.logger ?? createLogger({ level: "info", sink: (l) => logs.push(l) });
  const cp = await startControlPlane(config, {
    logger,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const token = (await Deno.readTextFile(`${dir}/admin.token`)).trim();
  const url = cp.url;
  const admin = adminJson(url, token);
  const agents: LlmgwProcess[] = [];
  const replicas = async (model: string) =>
    (await admin("GET", `replicas?model=${model}`)).body.data as ReplicaJson[];
  return {
    cp,
    config,
    root,
    url,
    token,
    logs,
    logger,
    admin,
    agents,
    ctl: (...args) => runCommand(ctlCommand, args, url, token),
    async joinAgent(name, o = {}) {
      const code = await cp.deps.nodes!.joinCodes.create({ labels: o.labels ?? {}, ttlMs: 60_000 });
      const p = spawnLlmgw(
        [
          "join",
          code.code,
          "--data",
          `${root}/${name}`,
          "--name",
          name,
          "--gpu-nvml-library",
          o.nvml ?? `${root}/absent-libnvidia-ml.so.1`,
          "--gpu-nvidia-smi",
          `${root}/absent-nvidia-smi`,
          ...(o.args ?? []),
        ],
        o.env ?? {},
        `agent-${name}`,
      );
      agents.push(p);
      return p;
    },
    replicas,
    readyReplica: (model, timeoutMs = 20_000, seen = new Set<string>()) =>
      eventually(`a ready replica of ${model}`, async () => {
        const rows = await replicas(model);
        for (const r of rows) seen.add(r.state);
        return rows.find((r) => r.state === "ready");
      }, timeoutMs),
    async addModel(yaml) {
      const r = await admin("POST", "models", { yaml });
      assertEquals(r.status, 201, JSON.stringify(r.body));
    },
    chat: (key, model, extra) => shortChat(url, key, model, extra),
    async close() {
      // SIGINT, not SIGTERM: an agent sent SIGTERM leaves its engines running for the next agent
      // to adopt, and a test's would outlive it.
      for (const p of agents) await p.kill("SIGINT").catch(() => {});
      await cp.close();
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Sends `send()` again and again until stopped, keeping every answer that was not a 200: the
 * client that a rolling change must not disturb.
 */
export function clientLoop(
  send: () => Promise<Response>,
): { stop(): Promise<{ answered: number; failures: string[] }> } {
  let stopped = false;
  const failures: string[] = [];
  let answered = 0;
  const loop = (async () => {
    while (!stopped) {
      const res = await send();
      if (res.status !== 200) failures.push(`${res.status} ${await res.text()}`);
      else {
        answered++;
        await res.body?.cancel();
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { answered, failures };
    },
  };
}
