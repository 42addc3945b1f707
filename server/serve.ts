/**
 * Starts a control plane from a resolved config: opens the store, builds the services and the
 * app, and listens. `close()` stops listening, then writes the usage still in memory.
 */
import { type Clock, systemClock } from "../core/clock.ts";
import type { LevelControl, Logger } from "../core/log.ts";
import { openStore, type Store } from "../db/store.ts";
import { buildApp } from "./app.ts";
import { AdminTokens } from "./auth/admin_tokens.ts";
import { type ServerConfig, serverSettings } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { KeyService } from "./keys/keys.ts";
import { ModelCatalog } from "./router/catalog.ts";
import { followExternalModels } from "./router/external.ts";
import { LoadPoller } from "./router/load_poller.ts";
import { ReplicaTable } from "./router/replicas.ts";
import { createRouting } from "./router/routing.ts";
import { defaultPrefixOptions } from "./router/request_keys.ts";
import { UsageRecorder } from "./usage/recorder.ts";
import { StoreKeyOwners } from "./usage/key_owners.ts";
import { type ClusterListener, startClusterListener } from "./nodes/cluster_listener.ts";
import { GatewayMetrics } from "./observe/gateway_metrics.ts";
import { Tracer } from "./observe/tracing.ts";
import { UsageRetention } from "./usage/retention.ts";
import { type DataLock, lockDataDir } from "./ops/data_lock.ts";
import { ClusterSettings } from "./settings/cluster_settings.ts";
import { applyLiveSettings } from "./settings/live_appliers.ts";
import { clientTls, startClientListener } from "./ops/client_listener.ts";
import { type Notifications, startNotifications } from "./notify/start_notifications.ts";
import { type MetricsListener, startMetricsListener } from "./observe/metrics_listener.ts";
import { oidcConfigFrom } from "./auth/oidc.ts";
import { startPeople } from "./tenancy/services.ts";
import { startMirror } from "./weights/start_mirror.ts";
import { type ModelsRuntime, startModels } from "./models/start_models.ts";

export interface ControlPlane {
  /** The address clients use, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The https URLs nodes dial (in join codes); absent without a cluster listener. */
  readonly clusterUrls?: string[];
  readonly deps: AppDeps;
  readonly usage: UsageRecorder;
  /** Reads engines' load into the replica table; nodes add their load sources to it. */
  readonly loadPoller: LoadPoller;
  readonly metrics: GatewayMetrics;
  /** Episodes and webhooks; the limits code calls `notifier.budgetReached`. */
  readonly notifications: Notifications;
  /** Where Prometheus scrapes; absent when `metrics_listen` is empty or could not be bound. */
  readonly metricsUrl?: string;
  /**
   * Stops taking requests and waits for those in flight, streams included, up to `graceMs`
   * (default `shutdown_grace_ms`), then cuts the rest. `close` drains first if not done.
   */
  drain(graceMs?: number): Promise<void>;
  /** Ends the drain's grace now (asked twice to stop): requests still open are cut. */
  cutRequests(): void;
  /** Drains, then stops the nodes' listener, notifications, writes usage, closes the store. */
  close(): Promise<void>;
}

export async function startControlPlane(
  fileConfig: ServerConfig,
  opts: {
    logger: Logger;
    clock?: Clock;
    store?: Store;
    /** The root logger's level, changed when `log_level` is changed live. */
    logLevel?: LevelControl;
  },
): Promise<ControlPlane> {
  const clock = opts.clock ?? systemClock;
  // Changed in place by live settings; the caller's object is left alone.
  const config: ServerConfig = { ...fileConfig };
  let lock: DataLock | undefined;
  let store: Store;
  let settings: ClusterSettings;
  let notifications: Notifications;
  const replicas = new ReplicaTable({
    breakerFailures: config.breakerFailures,
    breakerCooldownMs: config.breakerCooldownMs,
    now: () => clock.now(),
  });
  try {
    // One control plane per data directory; restore checks the same lock.
    lock = opts.store ? undefined : await lockDataDir(config.dataDir);
    store = opts.store ?? (await openStore(`${config.dataDir}/llmgw.db`));
  } catch (e) {
    lock?.release();
    throw e;
  }
  try {
    settings = await ClusterSettings.open({
      store,
      clock,
      logger: opts.logger,
      defs: serverSettings,
      config: config as unknown as Record<string, unknown>,
      ...(config.overridden ? { overridden: config.overridden } : {}),
    });
    if (opts.logLevel) opts.logLevel.level = config.logLevel;
    notifications = await startNotifications(config, { clock, logger: opts.logger, replicas });
  } catch (e) {
    if (!opts.store) store.close();
    lock?.release();
    throw e;
  }
  // What has been started so far, stopped in reverse if a later part cannot start.
  const started: (() => unknown)[] = [
    () => lock?.release(),
    () => opts.store || store.close(),
    () => notifications.close(0),
  ];
  const unwind = async () => {
    for (const stop of started.reverse()) await stop();
  };
  const usage = new UsageRecorder({
    store,
    logger: opts.logger,
    flushMs: config.usageFlushMs,
    batchSize: config.usageBatch,
  });
  started.push(() => usage.close());
  const routing = createRouting(
    {
      queueTimeoutMs: config.queueTimeoutMs,
      streamIdleTimeoutMs: config.streamIdleTimeoutMs,
      maxAttempts: config.maxAttempts,
      batchSharePercent: config.batchSharePercent,
      prefix: { ...defaultPrefixOptions, minChars: config.prefixMinChars },
      prefixIndexSize: config.prefixIndexSize,
    },
    opts.logger,
    (endpoint) => notifications.notifier.keyRefused(endpoint),
  );
  started.push(() => routing.upstream.close());
  replicas.onRoom = (model) => {
    routing.admission.wake(model);
    notifications.notifier.modelReady(model);
  };
  const tracer = config.otelEndpoint
    ? new Tracer({
      endpoint: config.otelEndpoint,
      serviceName: config.otelServiceName,
      samplePercent: config.otelSamplePercent,
      batchMs: config.otelBatchMs,
      logger: opts.logger,
    })
    : undefined;
  let nodesForMetrics: AppDeps["nodes"];
  const metrics = new GatewayMetrics({
    replicas,
    routing,
    nodes: () => nodesForMetrics?.hub,
    usageWriter: () => ({
      pending: usage.pending,
      oldestPendingMs: usage.oldestPendingMs,
      dropped: usage.dropped,
    }),
  });
  const keys = new KeyService({
    store,
    clock,
    cacheMs: config.keyCacheMs,
    logger: opts.logger,
    unknownPerMinute: config.unknownKeysPerMinute,
  });
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
  started.push(() => people.close());
  const mirror = await startMirror(config, { store, clock, logger: opts.logger });
  started.push(() => mirror.close());
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
    mirror,
    usage: {
      record: (row) => {
        metrics.observeUsage(row);
        tracer?.usage(row);
        usage.record(row);
      },
    },
    metrics,
    keyOwners: new StoreKeyOwners(store),
    ...(tracer ? { tracer } : {}),
    settings,
    notifier: notifications.notifier,
    ...(notifications.sender ? { notifySender: notifications.sender } : {}),
    ...(config.portal ? { portal: { publicUrl: config.publicUrl } } : {}),
  };
  applyLiveSettings(settings, {
    config,
    deps,
    routing,
    notifier: notifications.notifier,
    ...(opts.logLevel ? { logLevel: opts.logLevel } : {}),
  });
  await followExternalModels(deps.catalog, replicas, opts.logger);
  const retention = new UsageRetention({
    store,
    clock,
    logger: opts.logger,
    retainDays: () => config.usageRetainDays,
  });
  await retention.start();
  started.push(() => retention.stop(), () => tracer?.close());
  const loadPoller = new LoadPoller(replicas, { intervalMs: config.loadPollMs, clock });
  loadPoller.start();
  started.push(() => loadPoller.stop());
  let cluster: ClusterListener | undefined;
  let models: ModelsRuntime | undefined;
  if (config.clusterListen) {
    try {
      cluster = await startClusterListener(config, {
        store,
        clock,
        logger: opts.logger,
        replicas,
        catalog: deps.catalog,
        events: notifications.nodeEvents,
        mirror,
      });
    } catch (e) {
      await unwind();
      throw e;
    }
    started.push(() => cluster?.close());
    deps.nodes = cluster.services;
    nodesForMetrics = cluster.services;
    models = await startModels(config, {
      store,
      clock,
      logger: opts.logger,
      catalog: deps.catalog,
      replicas,
      hub: cluster.services.hub,
      nodes: cluster.nodeStore,
      mirror,
    });
    started.push(() => models?.close());
    deps.modelServices = models.services;
    deps.models = models.gate;
    const gate = models.gate;
    replicas.onRoom = (model) => {
      routing.admission.wake(model);
      notifications.notifier.modelReady(model);
      gate.wake(model);
    };
  }
  metrics.setCatalog(deps.catalog);
  const metricsListener: MetricsListener | undefined = await startMetricsListener(
    config.metricsListen,
    metrics,
    opts.logger,
  );
  const app = buildApp(deps);
  let listener: Awaited<ReturnType<typeof startClientListener>>;
  try {
    const tls = await clientTls(config);
    deps.secureCookies = tls !== undefined;
    listener = await startClientListener(config, app.fetch, opts.logger, tls);
  } catch (e) {
    await metricsListener?.close();
    await unwind();
    throw e;
  }
  const url = listener.url;
  opts.logger.info("control plane listening", { url });
  await mirror.resume();
  return {
    url,
    ...(cluster ? { clusterUrls: cluster.urls } : {}),
    deps,
    usage,
    loadPoller,
    metrics,
    notifications,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    drain: (graceMs = config.shutdownGraceMs) => listener.drain(graceMs),
    cutRequests: () => listener.cutNow(),
    async close() {
      // Requests in flight finish (or are cut after the grace) before anything they use stops.
      await listener.drain(config.shutdownGraceMs);
      models?.close();
      routing.upstream.close();
      await tracer?.close();
      loadPoller.stop();
      retention.stop();
      await metricsListener?.close();
      await cluster?.close();
      await mirror.close();
      await notifications.close();
      await usage.close();
      await people.close();
      if (!opts.store) store.close();
      lock?.release();
    },
  };
}
