/** Everything the app is built from, passed in so tests can build it with fakes at the edges. */
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../db/store.ts";
import type { AdminTokens } from "./auth/admin_tokens.ts";
import type { KeyService } from "./keys/keys.ts";
import type { PeopleServices } from "./tenancy/services.ts";
import type { ModelCatalog } from "./router/catalog.ts";
import type { ReplicaTable } from "./router/replicas.ts";
import type { Routing } from "./router/routing.ts";
import type { UsageSink } from "./usage/recorder.ts";
import type { NodeServices } from "./nodes/admin_routes.ts";
import type { MirrorService } from "./weights/mirror.ts";

export interface AppDeps {
  limits: { maxBodyBytes: number; firstByteTimeoutMs: number };
  store: Store;
  clock: Clock;
  logger: Logger;
  keys: KeyService;
  adminTokens: AdminTokens;
  catalog: ModelCatalog;
  replicas: ReplicaTable;
  /** Admission queues, prefix index and routing settings. */
  routing: Routing;
  usage: UsageSink;
  /** Joined nodes and their channels; absent when there is no cluster listener. */
  nodes?: NodeServices;
  /** Tenancy, limits, budgets, admission, audit, sign-in (people branch). */
  people: PeopleServices;
  /** The weights mirror (admin API /api/v1/mirror, files at /mirror/); absent when off. */
  mirror?: MirrorService;
  /** The browser portal (server/portal/), or undefined when it is off. */
  portal?: { publicUrl: string };
}
