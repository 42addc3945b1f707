/**
 * Builds every service the app is made from, once, from a resolved config and the edges a
 * caller gives (the store, the clock, the logger): the one wiring that `serve.ts` and the tests'
 * harness share. The cluster listener is built here too when `cluster_listen` is set, since the
 * admin API serves its nodes; the client and metrics listeners are serve.ts's.
 */
import type { Clock } from "../core/clock.ts";
import type { LevelControl, Logger } from "../core/log.ts";
import type { Store } from "../db/store.ts";
import { AdminTokens } from "./auth/admin_tokens.ts";
import type { OidcConfig } from "./auth/oidc.ts";
import { type ServerConfig, serverSettings } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { type KeyLookup, KeyService } from "./keys/keys.ts";
import { type ModelGate, noModelGate } from "./models/model_gate.ts";
import { type ModelsRuntime, startModels } from "./models/start_models.ts";
import { type ClusterListener, startClusterListener } from "./nodes/cluster_listener.ts";
import { type Notifications, startNotifications } from "./notify/start_notifications.ts";
import { noWebhooks } from "./notify/webhook_sender.ts";
import { GatewayMetrics } from "./observe/gateway_metrics.ts";
import { noTracing, requestTracer } from "./observe/request_tracer.ts";
import { Tracer } from "./observe/tracing.ts";
import { ModelCatalog } from "./router/catalog.ts";
import { followExternalModels } from "./router/external.ts";
import { ReplicaTable } from "./router/replicas.ts";
import { defaultPrefixOptions } from "./router/request_keys.ts";
import { createRouting, type Routing } from "./router/routing.ts";
import { ClusterSettings } from "./settings/cluster_settings.ts";
import { applyLiveSettings } from "./settings/live_appliers.ts";
import { startPeople } from "./tenancy/services.ts";
import { StoreKeyOwners } from "./usage/key_owners.ts";
import { UsageRecorder, type UsageSink } from "./usage/recorder.ts";
import { startMirror } from "./weights/start_mirror.ts";

/** What the services are built on, given by the caller (real ones, or a test's). */
export interface ServiceEdges {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The root logger's level, changed when `log_level` is changed live. */
  logLevel?: LevelControl;
  /** Single sign-on, resolved from the config beforehand (it reads the client secret's file). */
  oidc: OidcConfig | null;
  /** Where an outside provider's refusal of a key goes; the notifier by default. */
  onKeyRefused?: (endpoint: string) => void;
  /** How keys are looked up; the store by default. */
  keyLookup?: KeyLookup;
}

export interface Services {
  /** The composition root's record, for buildApp. */
  readonly deps: AppDeps;
  /** The config the services read, changed in place by live settings (the caller's is not). */
  readonly config: ServerConfig;
  readonly usage: UsageRecorder;
  readonly metrics: GatewayMetrics;
  /** Episodes and webhooks; the limits code calls `notifier.budgetReached`. */
  readonly notifications: Notifications;
  /** The https URLs nodes dial (in join codes); absent without a cluster listener. */
  readonly clusterUrls?: string[];
  /** Stops everything built here, in reverse; the store is the caller's. */
  close(): Promise<void>;
}

export async function buildServices(
  fileConfig: ServerConfig,
  edges: ServiceEdges,
): Promise<Services> {
  const config: ServerConfig = { ...fileConfig };
  const { clock, logger } = edges;
  const settings = await openSettings(config, edges);
  const replicas = new ReplicaTable({
    breakerFailures: config.breakerFailures,
    breakerCooldownMs: config.breakerCooldownMs,
    now: () => clock.now(),
  });
  const notifications = await startNotifications(config, { clock, logger, replicas });
  // What has been started so far, stopped in reverse if a later part cannot start.
  const started: (() => unknown)[] = [() => notifications.close(0)];
  const stopAll = async () => {
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    return await buildOnto(config, edges, { settings, replicas, notifications, started, stopAll });
  } catch (e) {
    await stopAll();
    throw e;
  }
}

async function openSettings(config: ServerConfig, edges: ServiceEdges): Promise<ClusterSettings> {
  const settings = await ClusterSettings.open({
    store: edges.store,
    clock: edges.clock,
    logger: edges.logger,
    defs: serverSettings,
    config: config as unknown as Record<string, unknown>,
    ...(config.overridden ? { overridden: config.overridden } : {}),
  });
  if (edges.logLevel) edges.logLevel.level = config.logLevel;
  return settings;
}

async function buildOnto(
  config: ServerConfig,
  edges: ServiceEdges,
  made: {
    settings: ClusterSettings;
    replicas: ReplicaTable;
    notifications: Notifications;
    started: (() => unknown)[];
    stopAll: () => Promise<void>;
  },
): Promise<Services> {
  const { store, clock, logger } = edges;
  const { settings, replicas, notifications, started } = made;
  const notifier = notifications.notifier;
  const usage = new UsageRecorder({
    store,
    logger,
    flushMs: config.usageFlushMs,
    batchSize: config.usageBatch,
  });
  started.push(() => usage.close());
  const routing = buildRouting(
    config,
    logger,
    edges.onKeyRefused ?? ((e) => notifier.keyRefused(e)),
  );
  started.push(() => routing.upstream.close());
  const tracer = config.otelEndpoint ? buildTracer(config, logger) : undefined;
  if (tracer) started.push(() => tracer.close());
  let cluster: ClusterListener | undefined;
  const metrics = new GatewayMetrics({
    replicas,
    routing,
    nodes: () => cluster?.services.hub,
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
    logger,
    unknownPerMinute: config.unknownKeysPerMinute,
    ...(edges.keyLookup ? { lookup: edges.keyLookup } : {}),
  });
  const catalog = await ModelCatalog.load({ store, clock });
  const people = await startPeople({
    store,
    clock,
    logger,
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
    oidc: edges.oidc,
    publicUrl: config.publicUrl,
  });
  started.push(() => people.close());
  const mirror = await startMirror(config, { store, clock, logger });
  started.push(() => mirror.close());
  await followExternalModels(catalog, replicas, logger);
  let models: ModelsRuntime | undefined;
  // Set before nodes can join: a replica they bring wakes its waiters, and the gate's once built.
  let gate: ModelGate = noModelGate;
  replicas.onRoom = (model) => {
    routing.admission.wake(model);
    notifier.modelReady(model);
    gate.wake(model);
  };
  if (config.clusterListen) {
    cluster = await startClusterListener(config, {
      store,
      clock,
      logger,
      replicas,
      catalog,
      events: notifications.nodeEvents,
      mirror,
    });
    started.push(() => cluster?.close());
    models = await startModels(config, {
      store,
      clock,
      logger,
      catalog,
      replicas,
      hub: cluster.services.hub,
      nodes: cluster.nodeStore,
    });
    started.push(() => models?.close());
  }
  if (models) gate = models.gate;
  metrics.setCatalog(catalog);
  const deps: AppDeps = {
    limits: { maxBodyBytes: config.maxBodyBytes, firstByteTimeoutMs: config.firstByteTimeoutMs },
    store,
    clock,
    logger,
    keys,
    people,
    adminTokens: new AdminTokens({ store, clock }),
    catalog,
    replicas,
    routing,
    mirror,
    usage: usageSink(usage, metrics, tracer),
    models: gate,
    nodes: cluster?.services,
    modelServices: models?.services,
    metrics,
    keyOwners: new StoreKeyOwners(store),
    tracer: tracer ? requestTracer(tracer) : noTracing,
    settings,
    notifier,
    notifySender: notifications.sender ?? noWebhooks,
    portal: config.portal ? { publicUrl: config.publicUrl } : undefined,
  };
  applyLiveSettings(settings, {
    config,
    limits: deps.limits,
    routing,
    notifier,
    ...(edges.logLevel ? { logLevel: edges.logLevel } : {}),
  });
  return {
    deps,
    config,
    usage,
    metrics,
    notifications,
    ...(cluster ? { clusterUrls: cluster.urls } : {}),
    close: made.stopAll,
  };
}

function buildRouting(
  config: ServerConfig,
  logger: Logger,
  onKeyRefused: (endpoint: string) => void,
): Routing {
  return createRouting(
    {
      queueTimeoutMs: config.queueTimeoutMs,
      streamIdleTimeoutMs: config.streamIdleTimeoutMs,
      maxAttempts: config.maxAttempts,
      batchSharePercent: config.batchSharePercent,
      prefix: { ...defaultPrefixOptions, minChars: config.prefixMinChars },
      prefixIndexSize: config.prefixIndexSize,
    },
    logger,
    onKeyRefused,
  );
}

function buildTracer(config: ServerConfig, logger: Logger): Tracer {
  return new Tracer({
    endpoint: config.otelEndpoint,
    serviceName: config.otelServiceName,
    samplePercent: config.otelSamplePercent,
    batchMs: config.otelBatchMs,
    logger,
  });
}

/** Each usage row goes to the metrics, the trace (when on) and the store's writer. */
function usageSink(usage: UsageRecorder, metrics: GatewayMetrics, tracer?: Tracer): UsageSink {
  if (!tracer) {
    return {
      record: (row) => {
        metrics.observeUsage(row);
        usage.record(row);
      },
    };
  }
  return {
    record: (row) => {
      metrics.observeUsage(row);
      tracer.usage(row);
      usage.record(row);
    },
  };
}
