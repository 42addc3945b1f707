/** Everything the app is built from, passed in so tests can build it with fakes at the edges. */
import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import type { Store } from "../db/store.ts";
import type { AdminTokens } from "./auth/admin_tokens.ts";
import type { KeyService } from "./keys/keys.ts";
import type { ModelCatalog } from "./router/catalog.ts";
import type { ReplicaTable } from "./router/replicas.ts";
import type { UsageSink } from "./usage/recorder.ts";
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
  usage: UsageSink;
  /** The weights mirror (admin API /api/v1/mirror, files at /mirror/); absent when off. */
  mirror?: MirrorService;
  /** The portal's landing page, or undefined when the portal is off. */
  portalHtml?: string;
}
