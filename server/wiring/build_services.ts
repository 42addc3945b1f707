/**
 * Builds every service the app is made from, once, from a resolved config and the edges a
 * caller gives (the store, the clock, the logger): the one wiring that `serve.ts` and the tests'
 * harness share. The cluster listener is built here too when `cluster_listen` is set, since the
 * admin API serves its nodes; the client and metrics listeners are serve.ts's.
 */
import { ResponseStore } from "../responses/response_store.ts";
import { FileStore } from "../files/file_store.ts";
import { BatchService } from "../batches/batch_service.ts";
import type { Clock } from "../../core/clock.ts";
import type { LevelControl, Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { AdminTokens } from "../auth/admin_tokens.ts";
import { type LeaderGate, soleLeader } from "../control/leadership.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import { type SharedReplicas, shareReplicas } from "../control/shared_replicas.ts";
import type { Peers } from "../control/peers.ts";
import type { OidcConfig } from "../auth/oidc.ts";
import { otelSettings, type ServerConfig, serverSettings } from "./config.ts";
import { parseOtelPairs } from "../observe/otel_env.ts";
import type { LdapConfig } from "../auth/ldap/ldap_config.ts";
import type { AppDeps } from "./deps.ts";
import { type KeyLookup, KeyService } from "../keys/keys.ts";
import { type ModelGate, noModelGate } from "../models/model_gate.ts";
import { type ModelsRuntime, startModels } from "./start_models.ts";
import { type ClusterListener, startClusterListener } from "./cluster_listener.ts";
import type { NodeEvents, NodeHub } from "../nodes/node_hub.ts";
import type { RecentSamples, ReportedCard } from "../observe/recent_samples.ts";
import { type Notifications, startNotifications } from "./start_notifications.ts";
import { noWebhooks } from "../notify/webhook_sender.ts";
import { GatewayMetrics } from "../observe/gateway_metrics.ts";
import { noTracing, requestTracer } from "../observe/request_tracer.ts";
import { Tracer } from "../observe/tracing.ts";
import { ModelCatalog } from "../router/catalog.ts";
import { AnswerCache } from "../cache/answer_cache.ts";
import { firstPasswordPath } from "../setup/first_password.ts";
import { replicasWanted } from "../models/catalog_row.ts";
import { ReplicaTable } from "../router/replicas.ts";
import { defaultPrefixOptions } from "../router/request_keys.ts";
import { createRouting, type Routing } from "../router/routing.ts";
import { ClusterSettings } from "../settings/cluster_settings.ts";
import { SlotShares } from "../cluster/slot_shares.ts";
import { applyLiveSettings } from "./live_appliers.ts";
import { startPeople } from "./start_people.ts";
import { GuardPolicies } from "../guard/policy_store.ts";
import { StoreKeyOwners } from "../usage/key_owners.ts";
import { UsageRecorder, type UsageSink } from "../usage/recorder.ts";
import type { MirrorService } from "../weights/mirror.ts";
import { startMirror } from "./start_mirror.ts";
import { buildMcp } from "../mcp/build_mcp.ts";
import { KnowledgeBases } from "../kb/knowledge_bases.ts";
import { dispatchEmbedder } from "../kb/embedder.ts";
import { dispatchDeps } from "./app.ts";

/** What the services are built on, given by the caller (real ones, or a test's). */
export interface ServiceEdges {
  store: Store;
  clock: Clock;
  logger: Logger;
  /** The root logger's level, changed when `log_level` is changed live. */
  logLevel?: LevelControl;
  /** Single sign-on, resolved from the config beforehand (it reads the client secret's file). */
  oidc: OidcConfig | null;
  /** Directory sign-in, resolved from `auth.ldap` beforehand (it reads the password and CA). */
  ldap?: LdapConfig | null;
  /** Where an outside provider's refusal of a key goes; the notifier by default. */
  onKeyRefused?: (endpoint: string) => void;
  /** How keys are looked up; the store by default. */
  keyLookup?: KeyLookup;
  /** Whether this control plane leads (the store's lease); always, when not given. */
  leadership?: LeaderGate;
  /** The other live control planes' cluster URLs, for join codes; none, when not given. */
  peerUrls?: () => Promise<string[]>;
  /** How caches learn of other control planes' writes; nobody else writes, when not given. */
  changes?: ChangeFeed;
  /** Whether another control plane shares the store now; the exchanges wait for one. */
  peers?: Peers;
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
  /** Replicas' slots shared with other control planes on the store. */
  readonly slotShares: SlotShares;
  /** The https URLs nodes dial (in join codes); absent without a cluster listener. */
  readonly clusterUrls?: string[];
  /** Stops everything built here, queued notifications given their grace; the store is the caller's. */
  close(): Promise<void>;
}

export async function buildServices(
  fileConfig: ServerConfig,
  edges: ServiceEdges,
): Promise<Services> {
  const config: ServerConfig = { ...fileConfig };
  const stops = new StopList();
  edges = {
    ...edges,
    leadership: edges.leadership ?? soleLeader(config.publicUrl || `http://${config.listen}`),
  };
  try {
    const settings = await openSettings(config, edges);
    const core = await buildCore(config, edges, stops);
    const accounts = await buildAccounts(config, edges, stops, core.notifications.notifier);
    const sync = accounts.people.directorySync;
    edges.leadership!.duty({
      name: "directory sync",
      start: () => sync.start(),
      stop: () => sync.stop(),
    });
    const mirror = await startMirror(config, edges);
    stops.push(() => mirror.close());
    const setGate = wakeOnRoom(core);
    const cluster = config.clusterListen
      ? await startCluster(config, edges, { ...core, catalog: accounts.catalog, mirror }, stops)
      : undefined;
    if (cluster) setGate(cluster.models.gate);
    core.metrics.setCatalog(accounts.catalog);
    // Only a model the catalog wants served at all times is unservable without a replica.
    core.notifications.notifier.wanted = (model) => {
      const entry = accounts.catalog.get(model);
      return entry !== undefined && replicasWanted(entry) > 0;
    };
    const deps = composeDeps(config, edges, { ...core, ...accounts, mirror, settings, cluster });
    applyLiveSettings(settings, {
      config,
      limits: deps.limits,
      routing: core.routing,
      notifier: deps.notifier,
      ...(edges.logLevel ? { logLevel: edges.logLevel } : {}),
    });
    return {
      deps,
      config,
      usage: core.usage,
      metrics: core.metrics,
      notifications: core.notifications,
      slotShares: core.slotShares,
      ...(cluster ? { clusterUrls: cluster.listener.urls } : {}),
      close: () => closeAll({ ...core, people: accounts.people, mirror, cluster }),
    };
  } catch (e) {
    await stops.stopAll();
    throw e;
  }
}

type Core = Awaited<ReturnType<typeof buildCore>>;
type Accounts = Awaited<ReturnType<typeof buildAccounts>>;
type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** The composition root's record, from the parts built. */
function composeDeps(
  config: ServerConfig,
  edges: ServiceEdges,
  p: Core & Accounts & {
    mirror: MirrorService;
    settings: ClusterSettings;
    cluster: Cluster | undefined;
  },
): AppDeps {
  const { cluster, notifications, tracer } = p;
  const deps: AppDeps = {
    keys: p.keys,
    catalog: p.catalog,
    people: p.people,
    guardPolicies: p.guardPolicies,
    adminTokens: p.adminTokens,
    keyOwners: p.keyOwners,
    limits: { maxBodyBytes: config.maxBodyBytes, firstByteTimeoutMs: config.firstByteTimeoutMs },
    store: edges.store,
    clock: edges.clock,
    logger: edges.logger,
    replicas: p.replicas,
    routing: p.routing,
    mirror: p.mirror,
    usage: usageSink(p.usage, p.metrics, tracer),
    responses: new ResponseStore(edges.store, edges.clock, config),
    ...fileServices(config, edges),
    models: cluster?.models.gate ?? noModelGate,
    nodes: cluster?.listener.services,
    modelServices: cluster?.models.services,
    metrics: p.metrics,
    tracer: tracer ? requestTracer(tracer) : noTracing,
    settings: p.settings,
    notifier: notifications.notifier,
    notifySender: notifications.sender ?? noWebhooks,
    portal: config.portal ? { publicUrl: config.publicUrl } : undefined,
    mcp: buildMcp(config, {
      store: edges.store,
      clock: edges.clock,
      logger: edges.logger,
      limits: p.people.limits,
      audit: p.people.audit,
      guardPolicies: p.guardPolicies,
      catalog: p.catalog,
      replicas: p.replicas,
      keys: p.keys,
      nodes: cluster?.listener.services,
      modelServices: cluster?.models.services,
    }),
    leadership: edges.leadership!,
    answerCache: buildAnswerCache(config, p.catalog, p.metrics),
    // Imports embed through the request path, which is built from this record: bound late.
    kb: new KnowledgeBases({
      store: edges.store,
      clock: edges.clock,
      logger: edges.logger.child({ component: "kb" }),
      tenancy: p.people.tenancy,
      embedder: dispatchEmbedder(() => dispatchDeps(deps)),
    }),
  };
  return deps;
}

/** The answer cache of this control plane: a model's answers go as soon as the model changes. */
function buildAnswerCache(
  config: ServerConfig,
  catalog: ModelCatalog,
  metrics: GatewayMetrics,
): AnswerCache {
  const cache = new AnswerCache({
    maxBytes: config.cacheMaxBytes,
    maxEntryBytes: config.cacheMaxEntryBytes,
    maxSimilar: config.cacheSimilarEntries,
    embeddingModel: config.cacheEmbeddingModel,
  });
  catalog.subscribe((_, name) => cache.dropModel(name));
  metrics.setAnswerCache(cache);
  return cache;
}

/** In the order the parts depend on each other: nothing stops before what still uses it. */
async function closeAll(
  p: Core & {
    people: Accounts["people"];
    mirror: MirrorService;
    cluster: Cluster | undefined;
  },
): Promise<void> {
  p.cluster?.shared.stop();
  p.cluster?.models.close();
  await p.slotShares.close();
  p.routing.upstream.close();
  await p.tracer?.close();
  await p.cluster?.listener.close();
  await p.mirror.close();
  await p.notifications.close();
  await p.usage.close();
  await p.people.close();
}

/** What has been started so far, stopped in reverse when a later part cannot start. */
class StopList {
  #stops: (() => unknown)[] = [];
  push(stop: () => unknown): void {
    this.#stops.push(stop);
  }
  async stopAll(): Promise<void> {
    for (const stop of this.#stops.splice(0).reverse()) await stop();
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
    ...(config.inFile ? { inFile: config.inFile } : {}),
    ...(edges.changes ? { changes: edges.changes } : {}),
  });
  edges.changes?.on("settings", () => settings.reload());
  if (edges.logLevel) edges.logLevel.level = config.logLevel;
  return settings;
}

/** The request path's own parts: replicas, notifications, usage, routing, tracing, metrics. */
async function buildCore(config: ServerConfig, edges: ServiceEdges, stops: StopList) {
  const { clock, logger } = edges;
  const replicas = new ReplicaTable({
    breakerFailures: config.breakerFailures,
    breakerCooldownMs: config.breakerCooldownMs,
    now: () => clock.now(),
  });
  const leadership = edges.leadership!;
  // One sender of webhooks among the control planes: the leader.
  const notifications = await startNotifications(config, {
    clock,
    logger,
    replicas,
    mayNotify: () => leadership.isLeader,
  });
  stops.push(() => notifications.close(0));
  const usage = new UsageRecorder({
    store: edges.store,
    logger,
    flushMs: config.usageFlushMs,
    batchSize: config.usageBatch,
  });
  stops.push(() => usage.close());
  const onKeyRefused = edges.onKeyRefused ?? ((e) => notifications.notifier.keyRefused(e));
  const routing = buildRouting(config, edges, onKeyRefused);
  stops.push(() => routing.upstream.close());
  routing.places?.start(sessionPlacesFlushMs, () => clock.now());
  stops.push(() => routing.places?.close(clock.now()));
  const tracer = config.otelEndpoint ? buildTracer(config, logger) : undefined;
  if (tracer) stops.push(() => tracer.close());
  const slotShares = new SlotShares({
    store: edges.store,
    clock,
    logger,
    replicas,
    waiting: (model) => routing.admission.waiting(model),
    plane: crypto.randomUUID(),
    intervalMs: slotShareMs,
    leads: () => leadership.isLeader,
    ...(edges.peers ? { peers: edges.peers } : {}),
  });
  // Counting with other control planes (the rate exchange on) shares replicas' slots too.
  if (config.rateExchangeMs > 0) slotShares.start();
  stops.push(() => slotShares.close());
  // Filled in once the cluster listener is up; the metrics read the hub when scraped.
  const hubRef: { hub?: NodeHub } = {};
  const metrics = new GatewayMetrics({
    replicas,
    routing,
    nodes: () => hubRef.hub,
    usageWriter: () => ({
      pending: usage.pending,
      oldestPendingMs: usage.oldestPendingMs,
      dropped: usage.dropped,
    }),
  });
  return { replicas, notifications, usage, routing, tracer, metrics, hubRef, slotShares };
}

/** The nodes' events as the notifier takes them, each heartbeat's cards also kept for the charts. */
function sampledEvents(events: NodeEvents, recent: RecentSamples): NodeEvents {
  return {
    ...events,
    heartbeat: (node, hb) => {
      events.heartbeat(node, hb);
      const gpus = (hb.gpu as { gpus?: ReportedCard[] } | undefined)?.gpus;
      if (Array.isArray(gpus)) recent.cards(node, gpus);
    },
  };
}

/** How often replicas' slots are shared out again among control planes (issue 19: every 2 s). */
const slotShareMs = 2_000;
/** How often live sessions' places are kept alive in the store (a TTL is minutes). */
const sessionPlacesFlushMs = 5_000;

/** Keys, the catalog and people (tenancy, limits, prices, budgets, sign-in). */
async function buildAccounts(
  config: ServerConfig,
  edges: ServiceEdges,
  stops: StopList,
  notifier: Notifications["notifier"],
) {
  const { store, clock, logger } = edges;
  const keys = new KeyService({
    store,
    clock,
    cacheMs: config.keyCacheMs,
    logger,
    unknownPerMinute: config.unknownKeysPerMinute,
    ...(edges.keyLookup ? { lookup: edges.keyLookup } : {}),
    ...(edges.changes ? { changes: edges.changes } : {}),
  });
  const catalog = await ModelCatalog.load({
    store,
    clock,
    ...(edges.changes ? { changes: edges.changes } : {}),
  });
  edges.changes?.on("catalog", () => catalog.reload());
  edges.changes?.on("keys", () => keys.forgetCached());
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
      // A cached answer costs nothing unless a model's price says otherwise.
      cacheHitPer1k: 0,
    },
    currency: config.currency,
    sessionTtlMs: config.sessionTtlMs,
    signupOpen: config.signupOpen,
    flushMs: config.accountingFlushMs,
    rateExchangeMs: config.rateExchangeMs,
    oidc: edges.oidc,
    ldap: edges.ldap ?? null,
    notifier,
    scimRules: { roles: config.oidcRoles, memberships: config.oidcMemberships },
    publicUrl: config.publicUrl,
    firstPasswordFile: firstPasswordPath(config.dataDir),
    ...(edges.changes ? { changes: edges.changes } : {}),
    ...(edges.peers ? { peers: edges.peers } : {}),
  });
  stops.push(() => people.close());
  return {
    keys,
    catalog,
    people,
    guardPolicies: await GuardPolicies.load({ store, clock }),
    adminTokens: new AdminTokens({ store, clock }),
    keyOwners: new StoreKeyOwners(store),
  };
}

/**
 * A replica with room wakes the requests queued for its model, the notifier, and (once there is
 * one) the models gate. Set before nodes can join, so a replica they bring is not missed.
 */
function wakeOnRoom(core: {
  replicas: ReplicaTable;
  routing: Routing;
  notifications: Notifications;
}): (gate: ModelGate) => void {
  let gate: ModelGate = noModelGate;
  core.replicas.onRoom = (model) => {
    core.routing.admission.wake(model);
    core.notifications.notifier.modelReady(model);
    gate.wake(model);
  };
  return (g) => {
    gate = g;
  };
}

/** The nodes' listener and the models placed on them (the reconciler). */
async function startCluster(
  config: ServerConfig,
  edges: ServiceEdges,
  made: {
    replicas: ReplicaTable;
    catalog: ModelCatalog;
    mirror: MirrorService;
    notifications: Notifications;
    hubRef: { hub?: NodeHub };
    metrics: GatewayMetrics;
  },
  stops: StopList,
): Promise<{ listener: ClusterListener; models: ModelsRuntime; shared: SharedReplicas }> {
  const { store, clock, logger } = edges;
  const { replicas, catalog } = made;
  const listener = await startClusterListener(config, {
    store,
    clock,
    logger,
    replicas,
    catalog,
    events: sampledEvents(made.notifications.nodeEvents, made.metrics.recent),
    mirror: made.mirror,
    leadership: edges.leadership!,
    ...(edges.peerUrls ? { peerUrls: edges.peerUrls } : {}),
  });
  stops.push(() => listener.close());
  made.hubRef.hub = listener.services.hub;
  const models = await startModels(config, {
    store,
    clock,
    logger,
    catalog,
    replicas,
    hub: listener.services.hub,
    nodes: listener.nodeStore,
    // hf: and URL models are mirrored when added: the mirror fetches the very pin stored.
    mirror: made.mirror,
    leadership: edges.leadership!,
  });
  stops.push(() => models.close());
  const shared = shareReplicas({
    store,
    clock,
    logger,
    leadership: edges.leadership!,
    replicas,
    listener,
    keepMs: () => config.nodeLostAfterMs,
    want: (model) => models.reconciler.want(model),
    demandMs: () => config.requestWaitMs,
    ...(edges.peers ? { peers: edges.peers } : {}),
  });
  models.reconciler.onStandbyWant = (model) => shared.wantOnLeader(model);
  stops.push(() => shared.stop());
  return { listener, models, shared };
}

function buildRouting(
  config: ServerConfig,
  edges: Pick<ServiceEdges, "store" | "logger" | "peers">,
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
      sessionTtlMs: config.routerSessionTtlMs,
      sessionTableSize: config.routerSessionTableSize,
      sharedSessions: config.routerSharedSessions,
      slotKeeperEngines: config.slotKeeperEngines.split(",").map((e) => e.trim()).filter(Boolean),
    },
    edges.logger,
    onKeyRefused,
    edges.store,
    edges.peers,
  );
}

/**
 * service.name: otel.service_name (OTEL_SERVICE_NAME) when set, else a service.name among the
 * resource attributes, as the OTEL SDKs decide it.
 */
function buildTracer(config: ServerConfig, logger: Logger): Tracer {
  const resource = parseOtelPairs(config.otelResourceAttributes, "otel.resource_attributes");
  const named = config.otelServiceName !== otelSettings.otelServiceName.default;
  return new Tracer({
    endpoint: config.otelEndpoint,
    serviceName: named
      ? config.otelServiceName
      : resource["service.name"] ?? config.otelServiceName,
    headers: parseOtelPairs(config.otelHeaders, "otel.headers"),
    resource,
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

/** /v1/files and /v1/batches: files under the data directory, batches in the store. */
function fileServices(config: ServerConfig, edges: ServiceEdges) {
  const fileLimits = {
    filesMaxBytes: config.filesMaxBytes,
    filesProjectQuotaBytes: config.filesProjectQuotaBytes,
    batchInteractiveSlots: config.batchInteractiveSlots,
    batchPricePercent: config.batchPricePercent,
  };
  const files = new FileStore(edges.store, edges.clock, config.dataDir, fileLimits);
  return { files, batches: new BatchService(edges.store, edges.clock, files), fileLimits };
}
