/**
 * Starts a control plane from a resolved config: opens the store, builds the services
 * (build_services.ts) and the app, and listens. `close()` stops listening, then everything else.
 */
import { BatchRunner } from "../batches/batch_runner.ts";
import { type Clock, systemClock } from "../../core/clock.ts";
import type { LevelControl, Logger } from "../../core/log.ts";
import { openStore, type Store } from "../../db/store.ts";
import { buildApp, dispatchDeps } from "./app.ts";
import { Leadership } from "../control/leadership.ts";
import { ControlPresence } from "../control/presence.ts";
import { StoreChangeFeed } from "../control/change_feed.ts";
import { oidcConfigFrom } from "../auth/oidc.ts";
import { ldapConfigFrom } from "../auth/ldap/ldap_config.ts";
import { buildServices, type Services } from "./build_services.ts";
import type { ServerConfig } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import type { Notifications } from "./start_notifications.ts";
import type { GatewayMetrics } from "../observe/gateway_metrics.ts";
import { type MetricsListener, startMetricsListener } from "./metrics_listener.ts";
import { type ClientListener, clientTls, startClientListener } from "./client_listener.ts";
import { type DataLock, lockDataDir } from "../ops/data_lock.ts";
import { followExternalModels } from "../router/external.ts";
import { LoadPoller } from "../router/load_poller.ts";
import type { UsageRecorder } from "../usage/recorder.ts";
import { UsageRetention } from "../usage/retention.ts";
import { importCaller } from "../kb/knowledge_bases.ts";

/**
 * How often the caches look for other control planes' changes (on PostgreSQL they are told at
 * once, and look only as a net), and reload anyway.
 */
const changePollMs = 1_000;
const notifiedChangePollMs = 10_000;
const safetyReloadMs = 60_000;

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
  const { logger } = opts;
  const opened = await openData(fileConfig, opts.store);
  const leadership = new Leadership({
    store: opened.store,
    clock,
    logger,
    // The same on a restart, so a control plane killed and started again takes its own lease
    // back at once; different for every machine and data directory.
    id: fileConfig.controlId || `${Deno.hostname()}:${fileConfig.dataDir}`,
    url: fileConfig.publicUrl || `http://${fileConfig.listen}`,
    ttlMs: () => services.config.leaseTtlMs,
  });
  const presence = new ControlPresence({
    store: opened.store,
    clock,
    logger,
    id: leadership.id,
    everyMs: () => Math.max(100, Math.floor(services.config.leaseTtlMs / 3)),
  });
  const changes = new StoreChangeFeed({
    store: opened.store,
    clock,
    logger,
    pollMs: changePollMs,
    notifiedPollMs: notifiedChangePollMs,
    reloadMs: safetyReloadMs,
    peers: presence,
  });
  let services: Services;
  try {
    services = await buildServices(fileConfig, {
      changes,
      store: opened.store,
      clock,
      logger,
      leadership,
      peerUrls: () => presence.clusterUrls(),
      peers: presence,
      ...(opts.logLevel ? { logLevel: opts.logLevel } : {}),
      oidc: await oidcConfigFrom(fileConfig, fileConfig.publicUrl || `http://${fileConfig.listen}`),
      ldap: await ldapConfigFrom(fileConfig),
    });
  } catch (e) {
    await opened.close();
    throw e;
  }
  const { config, deps } = services;
  let background: Background | undefined;
  let listeners: Listeners;
  try {
    await changes.start();
    background = await startBackground(config, deps, leadership);
    listeners = await startListeners(config, services.metrics, buildApp(deps).fetch, logger);
    const url = config.publicUrl || listeners.listener.url;
    leadership.setUrl(url);
    await presence.start(url, services.clusterUrls ?? []);
    await leadership.start();
  } catch (e) {
    changes.stop();
    presence.stop();
    await leadership.stop();
    background?.stop();
    await services.close();
    await opened.close();
    throw e;
  }
  const { listener, metricsListener } = listeners;
  logger.info("control plane listening", { url: listener.url });
  await deps.mirror.resume();
  return {
    url: listener.url,
    ...(services.clusterUrls ? { clusterUrls: services.clusterUrls } : {}),
    deps,
    usage: services.usage,
    loadPoller: background.loadPoller,
    metrics: services.metrics,
    notifications: services.notifications,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    drain: (graceMs = config.shutdownGraceMs) => listener.drain(graceMs),
    cutRequests: () => listener.cutNow(),
    async close() {
      // A standby takes the lease over at its next try, not after the lease's life.
      await leadership.stop();
      presence.stop();
      changes.stop();
      // Requests in flight finish (or are cut after the grace) before anything they use stops.
      await listener.drain(config.shutdownGraceMs);
      background.stop();
      await metricsListener?.close();
      await services.close();
      await opened.close();
    },
  };
}

interface Listeners {
  listener: ClientListener;
  metricsListener: MetricsListener | undefined;
}

/** The metrics listener (when set), then the client API's, plain or TLS. */
async function startListeners(
  config: ServerConfig,
  metrics: GatewayMetrics,
  fetchApp: Parameters<typeof startClientListener>[1],
  logger: Logger,
): Promise<Listeners> {
  const metricsListener = await startMetricsListener(config.metricsListen, metrics, logger);
  try {
    const tls = await clientTls(config);
    const listener = startClientListener(config, fetchApp, logger, tls, metrics.edge);
    return { listener, metricsListener };
  } catch (e) {
    await metricsListener?.close();
    throw e;
  }
}

/**
 * The store (store.url's PostgreSQL, else the data directory's SQLite file), and the data
 * directory's lock when the store is opened here.
 */
async function openData(
  config: Pick<ServerConfig, "dataDir" | "storeUrl">,
  given: Store | undefined,
): Promise<{ store: Store; close(): Promise<void> }> {
  if (given) return { store: given, close: async () => {} };
  // One control plane per data directory; restore checks the same lock.
  const lock: DataLock = await lockDataDir(config.dataDir);
  try {
    const store = await openStore(config.storeUrl || `${config.dataDir}/llmgw.db`);
    return {
      store,
      close: async () => {
        try {
          await store.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

interface Background {
  loadPoller: LoadPoller;
  stop(): void;
}

/**
 * What runs beside the requests: outside providers' endpoints following the catalog, usage
 * retention (the leader's alone) and the engines' load. (Tests start the ones they exercise
 * themselves.)
 */
async function startBackground(
  config: ServerConfig,
  deps: AppDeps,
  leadership: Leadership,
): Promise<Background> {
  await followExternalModels(deps.catalog, deps.replicas, deps.logger);
  const retention = new UsageRetention({
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    // Read at each sweep: a live setting changes it.
    retainDays: () => config.usageRetainDays,
  });
  leadership.duty({
    name: "usage retention",
    start: () => retention.start(),
    stop: () => retention.stop(),
  });
  const loadPoller = new LoadPoller(deps.replicas, {
    intervalMs: config.loadPollMs,
    clock: deps.clock,
  });
  loadPoller.start();
  // Batches in progress when the last control plane stopped go on from their rows.
  const batches = new BatchRunner({
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger.child({ component: "batches" }),
    keys: deps.keys,
    files: deps.files,
    dispatch: dispatchDeps(deps),
    usage: deps.usage,
    settings: deps.fileLimits,
  });
  batches.start();
  // Imports a stopped control plane left half embedded go on here, as the collection's project.
  leadership.duty({
    name: "knowledge base imports",
    start: () => void deps.kb.importer.resume((c) => importCaller(null, c)),
    stop: () => {},
  });
  return {
    loadPoller,
    stop() {
      loadPoller.stop();
      retention.stop();
      void batches.stop();
    },
  };
}
