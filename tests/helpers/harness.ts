/**
 * The real app in-process: a real store (SQLite in memory, migrations applied), the services
 * wired by the same buildServices() as serve.ts (no listeners, no background loops), and a real
 * simulated engine on a loopback port as its one replica. Tests drive it through `app.request`,
 * the front door.
 */
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { resolveSettings } from "../../core/settings.ts";
import { openStore, type Store } from "../../db/store.ts";
import { freshDatabase } from "./postgres.ts";
import { buildApp } from "../../server/wiring/app.ts";
import { buildServices } from "../../server/wiring/build_services.ts";
import { type ServerConfig, serverSettings } from "../../server/wiring/config.ts";
import type { AppDeps } from "../../server/wiring/deps.ts";
import type { KeyLookup } from "../../server/keys/keys.ts";
import type { RoutingSettings } from "../../server/router/routing.ts";
import { defaultPrefixOptions } from "../../server/router/request_keys.ts";
import type { UsageRecorder } from "../../server/usage/recorder.ts";
import type { SlotShares } from "../../server/cluster/slot_shares.ts";
import type { PeopleServices } from "../../server/tenancy/services.ts";
import type { OidcConfig } from "../../server/auth/oidc.ts";
import type { LeaderGate } from "../../server/control/leadership.ts";
import type { LdapConfig } from "../../server/auth/ldap/ldap_config.ts";
import { type RunningSimEngine, startSimEngine } from "../../agent/sim_engine/serve.ts";

export interface Harness {
  app: ReturnType<typeof buildApp>;
  deps: AppDeps;
  store: Store;
  /** The control plane's data directory (its mirror, and files on the embedded store). */
  dataDir: string;
  clock: FakeClock;
  usage: UsageRecorder;
  /** Replicas' slots shared with other harnesses on the same store (ticked by the test). */
  slotShares: SlotShares;
  engine: RunningSimEngine;
  /** A valid API key and admin token. */
  key: string;
  adminToken: string;
  people: PeopleServices;
  /** Sends a /v1 request with the key. */
  v1(path: string, body?: unknown, init?: RequestInit): Promise<Response>;
  /** Sends an /api/v1 request with the admin token, a body as JSON. */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  maxBodyBytes?: number;
  tokensPerSecond?: number;
  routing?: Partial<RoutingSettings>;
  breakerFailures?: number;
  breakerCooldownMs?: number;
  /** Called when an outside provider refuses a key. */
  onKeyRefused?: (endpoint: string) => void;
  keyCacheMs?: number;
  keys?: { lookup?: KeyLookup; unknownPerMinute?: number };
  oidc?: OidcConfig;
  /** oidc.roles and oidc.memberships (which SCIM's groups map through too). */
  groupRules?: { roles: Record<string, string[]>; memberships: Record<string, string> };
  /** Directory sign-in (auth.ldap), resolved as serve.ts would. */
  ldap?: LdapConfig;
  signupOpen?: boolean;
  /** Parts of the app replaced by a test's own (a metrics registry it reads, a fake notifier). */
  app?: Partial<AppDeps>;
  /** The MCP gateway's bound on one call, in ms. */
  mcpCallTimeoutMs?: number;
  /** The clock the app runs on, when a test builds collaborators on it before the harness. */
  clock?: FakeClock;
  /**
   * A store file instead of memory: an in-memory store has one connection, so a read while a
   * write transaction is open is refused; a test with writes beside reads (the batch runner)
   * needs the reader pool a file store has, as in production.
   */
  storePath?: string;
  /** The store's dialect: in-memory SQLite (the default) or a new PostgreSQL database. */
  dialect?: Store["dialect"];
  /**
   * A store to build on instead of a new one, left open at close: several harnesses on one
   * are several control planes. One Store object, so their writes queue on its one write path (two
   * connections in one process would block each other's event loop on SQLite's lock).
   */
  store?: Store;
  /**
   * False: a standby, which never leads (several harnesses on one store, the first leading);
   * otherwise it leads alone.
   */
  leads?: boolean;
  /** `limits.exchange_interval_ms`; 0 (the default here): counts alone, budgets without slices. */
  rateExchangeMs?: number;
  /** `router.cache.*`: the answer cache's sizes and embedding model. */
  cache?: { maxBytes?: number; maxEntryBytes?: number; embeddingModel?: string };
}

/** A control plane that never leads: its leader-only duties never start. */
const standby: LeaderGate = {
  id: "standby",
  isLeader: false,
  epoch: 0,
  duty: () => {},
  leader: () => Promise.resolve(undefined),
};

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const store = opts.store ?? await openStore(
    opts.dialect === "postgres" ? await freshDatabase() : opts.storePath ?? ":memory:",
  );
  const clock = opts.clock ?? new FakeClock();
  const engineKey = "engine-secret";
  const engine = await startSimEngine({
    model: "demo",
    tokensPerSecond: opts.tokensPerSecond ?? 5000,
    apiKey: engineKey,
  });
  const mirrorDir = await Deno.makeTempDir({ prefix: "llmgw-harness-mirror-" });
  const services = await buildServices(harnessConfig(opts, mirrorDir), {
    store,
    clock,
    logger: silentLogger,
    oidc: opts.oidc ?? null,
    ...(opts.leads === false ? { leadership: standby } : {}),
    ldap: opts.ldap ?? null,
    ...(opts.onKeyRefused ? { onKeyRefused: opts.onKeyRefused } : {}),
    ...(opts.keys?.lookup ? { keyLookup: opts.keys.lookup } : {}),
  });
  const deps: AppDeps = { ...services.deps, ...opts.app };
  const { usage } = services;
  const { people } = deps;
  await deps.catalog.upsert({ name: "demo", engine: "sim", source: "", description: "Simulated" });
  await deps.catalog.upsert({ name: "cold", engine: "sim", source: "" });
  deps.replicas.upsert({
    id: "r1",
    model: "demo",
    baseUrl: engine.url,
    apiKey: engineKey,
    state: "ready",
  });
  const app = buildApp(deps);
  const { key } = await deps.keys.create({ name: "test" });
  const adminToken = await deps.adminTokens.create("test");
  return {
    app,
    deps,
    store,
    dataDir: mirrorDir,
    clock,
    usage,
    slotShares: services.slotShares,
    engine,
    key,
    adminToken,
    v1: async (path, body, init = {}) =>
      await app.request(`/v1${path}`, {
        method: body === undefined ? "GET" : "POST",
        ...(body === undefined
          ? {}
          : { body: typeof body === "string" ? body : JSON.stringify(body) }),
        ...init,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          ...(init.headers ?? {}),
        },
      }),
    admin: async (method, path, body) =>
      await app.request(`/api/v1/${path}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    people,
    async close() {
      await services.close();
      await engine.close();
      if (!opts.store) await store.close();
      await Deno.remove(mirrorDir, { recursive: true });
    },
  };
}

/**
 * The server's defaults, but: no listeners, no portal, no webhooks; usage and counters kept in
 * memory until close (tests read them through the services); and the test's own settings.
 */
function harnessConfig(
  opts: HarnessOptions,
  mirrorDir: string,
): ServerConfig {
  const routing = opts.routing ?? {};
  return {
    ...resolveSettings(serverSettings, { flags: {}, env: {} }),
    dataDir: mirrorDir,
    mirrorDir,
    clusterListen: "",
    metricsListen: "",
    portal: false,
    otelEndpoint: "",
    notifyWebhooks: "",
    hfEndpoint: "",
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    firstByteTimeoutMs: 10_000,
    queueTimeoutMs: routing.queueTimeoutMs ?? 30_000,
    streamIdleTimeoutMs: routing.streamIdleTimeoutMs ?? 60_000,
    maxAttempts: routing.maxAttempts ?? 3,
    batchSharePercent: routing.batchSharePercent ?? 20,
    prefixMinChars: routing.prefix?.minChars ?? defaultPrefixOptions.minChars,
    prefixIndexSize: routing.prefixIndexSize ?? 100_000,
    ...(routing.sharedSessions !== undefined
      ? { routerSharedSessions: routing.sharedSessions }
      : {}),
    ...(routing.slotKeeperEngines
      ? { slotKeeperEngines: routing.slotKeeperEngines.join(",") }
      : {}),
    breakerFailures: opts.breakerFailures ?? 5,
    breakerCooldownMs: opts.breakerCooldownMs ?? 30_000,
    keyCacheMs: opts.keyCacheMs ?? 30_000,
    unknownKeysPerMinute: opts.keys?.unknownPerMinute ?? 30,
    usageFlushMs: 3_600_000,
    usageBatch: 100,
    accountingFlushMs: 3_600_000,
    rateExchangeMs: opts.rateExchangeMs ?? 0,
    defaultPromptPer1k: 1000,
    defaultCompletionPer1k: 2000,
    defaultCachedPer1k: 0,
    sessionTtlMs: 3_600_000,
    signupOpen: opts.signupOpen ?? false,
    publicUrl: "",
    mcpCallTimeoutMs: opts.mcpCallTimeoutMs ?? 30_000,
    ...(opts.cache?.maxBytes !== undefined ? { cacheMaxBytes: opts.cache.maxBytes } : {}),
    ...(opts.cache?.maxEntryBytes !== undefined
      ? { cacheMaxEntryBytes: opts.cache.maxEntryBytes }
      : {}),
    cacheEmbeddingModel: opts.cache?.embeddingModel ?? "",
    ...(opts.groupRules
      ? { oidcRoles: opts.groupRules.roles, oidcMemberships: opts.groupRules.memberships }
      : {}),
  };
}
