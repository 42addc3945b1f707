/** The MCP gateway's parts, built once by buildServices: the servers' book and the gateway. */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import type { LimitsBook } from "../accounting/limits.ts";
import type { AuditLog } from "../audit/audit.ts";
import { CallGuards } from "./call_guards.ts";
import { type ClusterToolDeps, clusterTools } from "./cluster_tools.ts";
import { McpGateway } from "./gateway.ts";
import { McpServerBook } from "./server_book.ts";
import { Sealer } from "../auth/seal.ts";
import { credentialsOf } from "./credentials.ts";
import { PersonAuth } from "./person_auth.ts";
import type { GuardPolicies } from "../guard/policy_store.ts";

export interface Mcp {
  servers: McpServerBook;
  gateway: McpGateway;
  /** Each person's authorisation at servers registered as `oauth`. */
  people: PersonAuth;
  /** The largest call's arguments and answer, in bytes (the route's body bound too). */
  maxBytes: number;
}

export function buildMcp(
  settings: { mcpCallTimeoutMs: number; mcpMaxBytes: number; dataDir: string },
  deps: Omit<ClusterToolDeps, "now"> & {
    clock: Clock;
    logger: Logger;
    limits: LimitsBook;
    audit: AuditLog;
    store: Store;
    guardPolicies: Pick<GuardPolicies, "forChain">;
  },
): Mcp {
  const servers = new McpServerBook({ store: deps.store, clock: deps.clock });
  const people = new PersonAuth({
    store: deps.store,
    clock: deps.clock,
    sealer: Sealer.fromDataDir(settings.dataDir, "mcp person tokens"),
    servers,
    timeoutMs: settings.mcpCallTimeoutMs,
  });
  const gateway = new McpGateway({
    servers,
    guards: new CallGuards({ store: deps.store, clock: deps.clock }),
    limits: deps.limits,
    audit: deps.audit,
    own: clusterTools({ ...deps, now: () => deps.clock.now() }),
    bounds: { timeoutMs: settings.mcpCallTimeoutMs, maxBytes: settings.mcpMaxBytes },
    credentials: credentialsOf(people),
    clock: deps.clock,
    logger: deps.logger.child({ component: "mcp" }),
    guard: deps.guardPolicies,
  });
  return { servers, gateway, people, maxBytes: settings.mcpMaxBytes };
}
