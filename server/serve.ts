/**
 * Starts a control plane from a resolved config: opens the store, builds the services and the
 * app, and listens. `close()` stops listening, then writes the usage still in memory.
 */
import { type Clock, systemClock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import { openStore, type Store } from "../db/store.ts";
import { buildApp } from "./app.ts";
import { AdminTokens } from "./auth/admin_tokens.ts";
import { parseListen, type ServerConfig } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { KeyService } from "./keys/keys.ts";
import { ModelCatalog } from "./router/catalog.ts";
import { ReplicaTable } from "./router/replicas.ts";
import { UsageRecorder } from "./usage/recorder.ts";
import { startMirror } from "./weights/start_mirror.ts";

export interface ControlPlane {
  /** The address clients use, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly deps: AppDeps;
  readonly usage: UsageRecorder;
  close(): Promise<void>;
}

export async function startControlPlane(
  config: ServerConfig,
  opts: { logger: Logger; clock?: Clock; store?: Store },
): Promise<ControlPlane> {
  const clock = opts.clock ?? systemClock;
  const store = opts.store ?? (await openStore(`${config.dataDir}/llmgw.db`));
  const usage = new UsageRecorder({
    store,
    logger: opts.logger,
    flushMs: config.usageFlushMs,
    batchSize: config.usageBatch,
  });
  const mirror = await startMirror(config, { store, clock, logger: opts.logger });
  const deps: AppDeps = {
    limits: { maxBodyBytes: config.maxBodyBytes, firstByteTimeoutMs: config.firstByteTimeoutMs },
    store,
    clock,
    logger: opts.logger,
    keys: new KeyService({ store, clock, cacheMs: config.keyCacheMs }),
    adminTokens: new AdminTokens({ store, clock }),
    catalog: await ModelCatalog.load({ store, clock }),
    replicas: new ReplicaTable(),
    usage,
    mirror,
    ...(config.portal ? { portalHtml: await portalPage() } : {}),
  };
  const app = buildApp(deps);
  const { hostname, port } = parseListen(config.listen);
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname,
    port,
    onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
    // Errors reach onError in the app; this catches what escapes Hono entirely.
    onError: (e) => {
      opts.logger.error("request failed outside the app", { error: e });
      return new Response("internal error", { status: 500 });
    },
  }, app.fetch);
  const addr = await listening.promise;
  const shownHost = addr.hostname === "0.0.0.0"
    ? "127.0.0.1"
    : addr.hostname.includes(":")
    ? `[${addr.hostname}]`
    : addr.hostname;
  const url = config.publicUrl || `http://${shownHost}:${addr.port}`;
  opts.logger.info("control plane listening", { url });
  await mirror.resume();
  return {
    url,
    deps,
    usage,
    async close() {
      await mirror.close();
      await server.shutdown();
      await usage.close();
      if (!opts.store) store.close();
    },
  };
}

async function portalPage(): Promise<string> {
  return await Deno.readTextFile(new URL("../web/index.html", import.meta.url));
}
