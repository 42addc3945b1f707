/**
 * What the admin API is built from: each resource file takes the part it uses
 * (`Pick<AdminDeps, …>`). The top floor (server/wiring/app.ts) hands it over.
 */
import type { Clock } from "../../../core/clock.ts";
import type { Store } from "../../../db/store.ts";
import type { AdminTokens } from "../../auth/admin_tokens.ts";
import type { GuardPolicies } from "../../guard/policy_store.ts";
import type { KnowledgeBases } from "../../kb/knowledge_bases.ts";
import type { KeyService } from "../../keys/keys.ts";
import type { Mcp } from "../../mcp/build_mcp.ts";
import type { ModelServices } from "../../models/model_services.ts";
import type { NodeServices } from "../../nodes/node_services.ts";
import type { WebhookTester } from "../../notify/webhook_sender.ts";
import type { ModelCatalog } from "../../router/catalog.ts";
import type { ReplicaTable } from "../../router/replicas.ts";
import type { Routing } from "../../router/routing.ts";
import type { ClusterSettings } from "../../settings/cluster_settings.ts";
import type { PeopleServices } from "../../tenancy/services.ts";
import type { KeyOwners } from "../../usage/summary.ts";

export interface AdminDeps {
  readonly people: PeopleServices;
  readonly adminTokens: AdminTokens;
  readonly keys: KeyService;
  readonly catalog: ModelCatalog;
  readonly replicas: ReplicaTable;
  readonly routing: Routing;
  readonly store: Store;
  readonly clock: Clock;
  /** Joined nodes and their channels; undefined without a cluster listener. */
  readonly nodes: NodeServices | undefined;
  /** The reconciler and the model admin operations; undefined without a cluster listener. */
  readonly modelServices: ModelServices | undefined;
  readonly settings: ClusterSettings;
  readonly keyOwners: KeyOwners;
  readonly notifySender: WebhookTester;
  readonly mcp: Mcp;
  readonly guardPolicies: GuardPolicies;
  readonly kb: KnowledgeBases;
}
