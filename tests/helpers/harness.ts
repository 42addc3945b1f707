/**
 * The real app in-process: a real store (SQLite in memory, migrations applied), the real
 * services, and a real simulated engine on a loopback port as its one replica. Tests drive it
 * through `app.request`, the front door.
 */
import { FakeClock } from "../../core/clock.ts";
import { silentLogger } from "../../core/log.ts";
import { openStore, type Store } from "../../db/store.ts";
import { freshDatabase } from "./postgres.ts";
import { buildApp } from "../../server/app.ts";
import { AdminTokens } from "../../server/auth/admin_tokens.ts";
import type { AppDeps } from "../../server/deps.ts";
import { KeyService } from "../../server/keys/keys.ts";
import { ModelCatalog } from "../../server/router/catalog.ts";
import { ReplicaTable } from "../../server/router/replicas.ts";
import { createRouting, type RoutingSettings } from "../../server/router/routing.ts";
import { UsageRecorder } from "../../server/usage/recorder.ts";
import { type PeopleServices, startPeople } from "../../server/tenancy/services.ts";
import type { OidcConfig } from "../../server/auth/oidc.ts";
import { type RunningSimEngine, startSimEngine } from "../../agent/sim_engine/serve.ts";

export interface Harness {
  app: ReturnType<typeof buildApp>;
  deps: AppDeps;
  store: Store;
  clock: FakeClock;
  usage: UsageRecorder;
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

export async function startHarness(
  opts: {
    maxBodyBytes?: number;
    tokensPerSecond?: number;
    routing?: Partial<RoutingSettings>;
    breakerFailures?: number;
    breakerCooldownMs?: number;
    /** Called when an outside provider refuses a key. */
    onKeyRefused?: (endpoint: string) => void;
    keyCacheMs?: number;
    keys?: Partial<ConstructorParameters<typeof KeyService>[0]>;
    oidc?: OidcConfig;
    signupOpen?: boolean;
    /** The store's dialect: in-memory SQLite (the default) or a new PostgreSQL database. */
    dialect?: Store["dialect"];
  } = {},
): Promise<Harness> {
  const store = await openStore(
    opts.dialect === "postgres" ? await freshDatabase() : ":memory:",
  );
  const clock = new FakeClock();
  const engineKey = "engine-secret";
  const engine = await startSimEngine({
    model: "demo",
    tokensPerSecond: opts.tokensPerSecond ?? 5000,
    apiKey: engineKey,
  });
  const usage = new UsageRecorder({
    store,
    logger: silentLogger,
    flushMs: 3_600_000,
    batchSize: 100,
  });
  const catalog = await ModelCatalog.load({ store, clock });
  await catalog.upsert({ name: "demo", engine: "sim", source: "", description: "Simulated" });
  await catalog.upsert({ name: "cold", engine: "sim", source: "" });
  const replicas = new ReplicaTable({
    breakerFailures: opts.breakerFailures ?? 5,
    breakerCooldownMs: opts.breakerCooldownMs ?? 30_000,
    now: () => clock.now(),
  });
  const routing = createRouting(opts.routing ?? {}, silentLogger, opts.onKeyRefused);
  replicas.onRoom = (model) => routing.admission.wake(model);
  replicas.upsert({
    id: "r1",
    model: "demo",
    baseUrl: engine.url,
    apiKey: engineKey,
    state: "ready",
  });
  const keys = new KeyService({ store, clock, cacheMs: opts.keyCacheMs ?? 30_000, ...opts.keys });
  const people = await startPeople({
    store,
    clock,
    logger: silentLogger,
    keys,
    catalog,
    defaultPrice: { promptPer1k: 1000, completionPer1k: 2000, cachedPer1k: 0 },
    sessionTtlMs: 3_600_000,
    signupOpen: opts.signupOpen ?? false,
    flushMs: 3_600_000,
    oidc: opts.oidc ?? null,
    publicUrl: "",
  });
  const deps: AppDeps = {
    limits: { maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024, firstByteTimeoutMs: 10_000 },
    store,
    clock,
    logger: silentLogger,
    keys,
    people,
    adminTokens: new AdminTokens({ store, clock }),
    catalog,
    replicas,
    routing,
    usage,
  };
  const app = buildApp(deps);
  const { key } = await deps.keys.create({ name: "test" });
  const adminToken = await deps.adminTokens.create("test");
  return {
    app,
    deps,
    store,
    clock,
    usage,
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
      routing.upstream.close();
      await usage.close();
      await people.close();
      await engine.close();
      await store.close();
    },
  };
}
