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
import type { NodeServices } from "./nodes/node_services.ts";
import type { MirrorService } from "./weights/mirror.ts";
import type { ModelGate } from "./models/model_gate.ts";
import type { ModelServices } from "./models/model_services.ts";
import type { GatewayMetrics } from "./observe/gateway_metrics.ts";
import type { Tracer } from "./observe/tracing.ts";
import type { KeyOwners } from "./usage/summary.ts";
import type { ClusterSettings } from "./settings/cluster_settings.ts";
import type { WebhookSender } from "./notify/webhook_sender.ts";
import type { Notifier } from "./notify/notifier.ts";

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
  /** The catalog's rules on the request path and waiting for a replica to start. */
  models?: ModelGate;
  /** The reconciler and the model admin operations; absent without a cluster listener. */
  modelServices?: ModelServices;
  /** Where keys belong (project, team), for usage by project/team; absent until tenancy has it. */
  keyOwners?: KeyOwners;
  /** The cluster's settings (store-backed; live ones apply at once). */
  settings?: ClusterSettings;
  /** Notification episodes: the limits code calls `notifier.budgetReached(level, subject)`. */
  notifier?: Notifier;
  /** Webhook deliveries; absent when `notify.webhooks` is empty. */
  notifySender?: WebhookSender;
  /** Served over HTTPS: session cookies get the Secure flag. */
  secureCookies?: boolean;
  /** OpenTelemetry traces; absent when `otel.endpoint` is empty. */
  tracer?: Tracer;
  /** Prometheus metrics; absent in tests that do not look at them. */
  metrics?: GatewayMetrics;
  /** The browser portal (server/portal/), or undefined when it is off. */
  portal?: { publicUrl: string };
}
