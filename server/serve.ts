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
import { followExternalModels } from "./router/external.ts";
import { LoadPoller } from "./router/load_poller.ts";
import { ReplicaTable } from "./router/replicas.ts";
import { createRouting } from "./router/routing.ts";
import { defaultPrefixOptions } from "./router/request_keys.ts";
import { UsageRecorder } from "./usage/recorder.ts";
import { type ClusterListener, startClusterListener } from "./nodes/cluster_listener.ts";
import { oidcConfigFrom } from "./auth/oidc.ts";
import { startPeople } from "./tenancy/services.ts";
import { startMirror } from "./weights/start_mirror.ts";

export interface ControlPlane {
  /** The address clients use, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The https URLs nodes dial (in join codes); absent without a cluster listener. */
  readonly clusterUrls?: string[];
  readonly deps: AppDeps;
  readonly usage: UsageRecorder;
  /** Reads engines' load into the replica table; nodes add their load sources to it. */
  readonly loadPoller: LoadPoller;
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
  const replicas = new ReplicaTable({
    breakerFailures: config.breakerFailures,
    breakerCooldownMs: config.breakerCooldownMs,
    now: () => clock.now(),
  });
  const routing = createRouting({
    queueTimeoutMs: config.queueTimeoutMs,
    streamIdleTimeoutMs: config.streamIdleTimeoutMs,
    maxAttempts: config.maxAttempts,
    batchSharePercent: config.batchSharePercent,
    prefix: { ...defaultPrefixOptions, minChars: config.prefixMinChars },
    prefixIndexSize: config.prefixIndexSize,
  }, opts.logger);
  replicas.onRoom = (model) => routing.admission.wake(model);
  const keys = new KeyService({
    store,
    clock,
    cacheMs: config.keyCacheMs,
    logger: opts.logger,
    unknownPerMinute: config.unknownKeysPerMinute,
  });
  const { hostname, port } = parseListen(config.listen);
  const catalog = await ModelCatalog.load({ store, clock });
  const people = await startPeople({
    store,
    clock,
    logger: opts.logger,
    keys,
    catalog,
    defaultPrice: {
      promptPer1k: config.defaultPromptPer1k,
      completionPer1k: config.defaultCompletionPer1k,
      cachedPer1k: config.defaultCachedPer1k,
    },
    sessionTtlMs: config.sessionTtlMs,
    signupOpen: config.signupOpen,
    flushMs: config.accountingFlushMs,
    oidc: await oidcConfigFrom(config, config.publicUrl || `http://${config.listen}`),
    publicUrl: config.publicUrl,
  });
  const mirror = await startMirror(config, { store, clock, logger: opts.logger });
  const deps: AppDeps = {
    limits: { maxBodyBytes: config.maxBodyBytes, firstByteTimeoutMs: config.firstByteTimeoutMs },
    store,
    clock,
    logger: opts.logger,
    keys,
    people,
    adminTokens: new AdminTokens({ store, clock }),
    catalog,
    replicas,
    routing,
    usage,
    mirror,
    ...(config.portal ? { portal: { publicUrl: config.publicUrl } } : {}),
  };
  await followExternalModels(deps.catalog, replicas, opts.logger);
  const loadPoller = new LoadPoller(replicas, { intervalMs: config.loadPollMs, clock });
  loadPoller.start();
  let cluster: ClusterListener | undefined;
  if (config.clusterListen) {
    try {
      cluster = await startClusterListener(config, {
        store,
        clock,
        logger: opts.logger,
        replicas,
        catalog: deps.catalog,
      });
    } catch (e) {
      loadPoller.stop();
      await usage.close();
      await people.close();
      if (!opts.store) store.close();
      throw e;
    }
    deps.nodes = cluster.services;
  }
  const app = buildApp(deps);
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
    ...(cluster ? { clusterUrls: cluster.urls } : {}),
    deps,
    usage,
    loadPoller,
    async close() {
      loadPoller.stop();
      await cluster?.close();
      await mirror.close();
      await server.shutdown();
      await usage.close();
      await people.close();
      if (!opts.store) store.close();
    },
  };
}
