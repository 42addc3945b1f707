/**
 * The composition root's record: everything the app is built from, made once by
 * buildServices() (server/wiring/build_services.ts) and never changed after. buildApp takes it apart
 * into each room's few collaborators; no room receives it whole. A feature that is off is a
 * no-op object here (tracing, webhooks, the models gate), so no caller tests for it; only the
 * cluster's own services are absent without a cluster listener, and the rooms that serve them
 * say so in their answers.
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { LeaderGate } from "../control/leadership.ts";
import type { Store } from "../../db/store.ts";
import type { AdminTokens } from "../auth/admin_tokens.ts";
import type { KeyService } from "../keys/keys.ts";
import type { PeopleServices } from "../tenancy/services.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import type { Routing } from "../router/routing.ts";
import type { UsageSink } from "../usage/recorder.ts";
import type { NodeServices } from "../nodes/node_services.ts";
import type { MirrorService } from "../weights/mirror.ts";
import type { ModelGate } from "../models/model_gate.ts";
import type { ModelServices } from "../models/model_services.ts";
import type { GatewayMetrics } from "../observe/gateway_metrics.ts";
import type { RequestTracer } from "../observe/request_tracer.ts";
import type { KeyOwners } from "../usage/summary.ts";
import type { ClusterSettings } from "../settings/cluster_settings.ts";
import type { WebhookTester } from "../notify/webhook_sender.ts";
import type { Notifier } from "../notify/notifier.ts";
import type { PortalOptions } from "../portal/portal.tsx";
import type { Mcp } from "../mcp/build_mcp.ts";
import type { GuardPolicies } from "../guard/policy_store.ts";
import type { ResponseStore } from "../responses/response_store.ts";
import type { FileStore } from "../files/file_store.ts";
import type { BatchService } from "../batches/batch_service.ts";
import type { AnswerCache } from "../cache/answer_cache.ts";
import type { KnowledgeBases } from "../kb/knowledge_bases.ts";

/** Read per request; a live setting changes them in place. */
export interface Limits {
  maxBodyBytes: number;
  firstByteTimeoutMs: number;
}

export interface AppDeps {
  readonly limits: Limits;
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly keys: KeyService;
  readonly adminTokens: AdminTokens;
  readonly catalog: ModelCatalog;
  readonly replicas: ReplicaTable;
  /** Admission queues, prefix index and routing settings. */
  readonly routing: Routing;
  readonly usage: UsageSink;
  /** Kept /v1/responses answers, per key (previous_response_id, retrieve, input_items). */
  readonly responses: ResponseStore;
  /** /v1/files: uploads per key, under the data directory. */
  readonly files: FileStore;
  /** /v1/batches as records; serve.ts runs them (BatchRunner). */
  readonly batches: BatchService;
  /** What the files, batches and the batch runner read of the settings. */
  readonly fileLimits: {
    readonly filesMaxBytes: number;
    readonly filesProjectQuotaBytes: number;
    readonly batchInteractiveSlots: number;
    readonly batchPricePercent: number;
  };
  /** Knowledge bases (server/kb/): collections, imports, hybrid search. */
  readonly kb: KnowledgeBases;
  /** Tenancy, limits, budgets, admission, audit, sign-in (people branch). */
  readonly people: PeopleServices;
  /** Guardrail policies at each level (server/guard/), checked on every inference request. */
  readonly guardPolicies: GuardPolicies;
  /** The weights mirror (admin API /api/v1/mirror, files at /mirror/). */
  readonly mirror: MirrorService;
  /** The catalog's rules on the request path and waiting for a replica to start. */
  readonly models: ModelGate;
  /** Joined nodes and their channels; undefined without a cluster listener. */
  readonly nodes: NodeServices | undefined;
  /** The reconciler and the model admin operations; undefined without a cluster listener. */
  readonly modelServices: ModelServices | undefined;
  /** Where keys belong (project, team), for usage by project/team. */
  readonly keyOwners: KeyOwners;
  /** The cluster's settings (store-backed; live ones apply at once). */
  readonly settings: ClusterSettings;
  /** Notification episodes: the limits code calls `notifier.budgetReached(level, subject)`. */
  readonly notifier: Notifier;
  /** Test deliveries to the webhooks; answers nothing when `notify.webhooks` is empty. */
  readonly notifySender: WebhookTester;
  /** OpenTelemetry spans for requests; does nothing when `otel.endpoint` is empty. */
  readonly tracer: RequestTracer;
  readonly metrics: GatewayMetrics;
  /** The MCP gateway at /mcp and its company servers (admin API /api/v1/mcp/servers). */
  readonly mcp: Mcp;
  /** The browser portal (server/portal/), or undefined when it is off. */
  readonly portal: PortalOptions | undefined;
  /** Whether this control plane leads the ones sharing its store (`/leader`). */
  readonly leadership: LeaderGate;
  /** Answers kept for reuse (server/cache/), this control plane's own. */
  readonly answerCache: AnswerCache;
}
