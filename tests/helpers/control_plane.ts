/**
 * A real control plane in-process on loopback ports (client, cluster TLS, metrics), its data
 * directory made by `init`, with an in-process sim engine as the `demo` model's one replica and
 * an API key. For tests of what an operator sees: metrics, logs, notifications, backups.
 */
import { createLogger, LevelControl, type Logger } from "../../core/log.ts";
import { systemClock } from "../../core/clock.ts";
import { loadServerConfig } from "../../server/config.ts";
import { type ControlPlane, startControlPlane } from "../../server/serve.ts";
import { initDataDir } from "../../server/setup/init.ts";
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
  opts: { flags?: Record<string, string>; logger?: Logger; dir?: string } = {},
): Promise<TestControlPlane> {
  const dir = opts.dir ?? await Deno.makeTempDir({ prefix: "llmgw-cp-" });
  const lines: string[] = [];
  const logLevel = new LevelControl("debug");
  const logger = opts.logger ?? createLogger({ sink: (l) => lines.push(l), level: logLevel });
  await initDataDir(dir, { clock: systemClock });
  const config = await loadServerConfig({
    flags: {
      data: dir,
      listen: "127.0.0.1:0",
      "cluster-listen": "127.0.0.1:0",
      "metrics-listen": "127.0.0.1:0",
      "usage-flush-interval-ms": "50",
      portal: "false",
      ...(opts.flags ?? {}),
    },
    env: {},
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
