/**
 * The MCP gateway's rules, apart from the protocol: which tools a key sees (granted by glob at
 * any level of the tree, the company servers' narrowed, an open breaker's gone), and how one call
 * goes (granted, under the breaker and the rate, bounded in time and size, audited by the
 * arguments' size and digest, never their text).
 */
import type { CallToolResult, Progress, Tool } from "./sdk.ts";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import type { Logger } from "../../core/log.ts";
import type { LimitsBook } from "../accounting/limits.ts";
import { globMatch } from "../accounting/limits.ts";
import type { AuditLog } from "../audit/audit.ts";
import type { McpCaller } from "./caller.ts";
import { breakerOpenMs, type CallGuards } from "./call_guards.ts";
import type { Credentials } from "./credentials.ts";
import { authorizedAlready, authorizeTool } from "./person_auth.ts";
import type { clusterTools } from "./cluster_tools.ts";
import { type McpServerBook, type McpServerEntry, ownServerName } from "./server_book.ts";
import type { GuardPolicies } from "../guard/policy_store.ts";
import { toolGuard } from "./tool_guard.ts";
import {
  type CallerHeaders,
  callUpstreamTool,
  listUpstreamTools,
  type UpstreamBounds,
} from "./upstream.ts";

export interface McpGatewayDeps {
  servers: Pick<McpServerBook, "list" | "get">;
  guards: CallGuards;
  limits: Pick<LimitsBook, "effective" | "toolGranted">;
  audit: Pick<AuditLog, "record">;
  own: ReturnType<typeof clusterTools>;
  bounds: UpstreamBounds;
  /** What each call to a company server carries: shared header files, or the person's token. */
  credentials: Credentials;
  clock: Clock;
  logger: Logger;
  /** The guardrail policies on the caller's levels: arguments and answers both checked. */
  guard: Pick<GuardPolicies, "forChain">;
}

/** How long a company server's tool list is reused before it is asked again. */
const listCacheMs = 30_000;

export class McpGateway {
  readonly #lists = new Map<string, { at: number; updatedAt: number; tools: Tool[] }>();

  constructor(private readonly deps: McpGatewayDeps) {}

  /** Every tool granted to the caller: llmgw's own, then each company server's, namespaced. */
  async listTools(caller: McpCaller): Promise<Tool[]> {
    const eff = this.deps.limits.effective(caller.chain);
    // None granted anywhere means none: no company server is even asked.
    if (eff.tools.length === 0) return [];
    const granted = (name: string) => this.deps.limits.toolGranted(eff, name);
    const out: Tool[] = [];
    for (const t of this.deps.own.values()) {
      const name = `${ownServerName}.${t.tool.name}`;
      if (granted(name)) out.push({ ...t.tool, name });
    }
    const entries = await this.deps.servers.list();
    const shut = await this.deps.guards.open(entries.map((e) => e.name));
    for (const entry of entries) {
      if (shut.has(entry.name)) continue;
      const tools = await this.#toolsOf(entry, caller);
      for (const t of tools) {
        const name = `${entry.name}.${t.name}`;
        if (granted(name)) out.push({ ...t, name });
      }
    }
    return out;
  }

  async callTool(
    caller: McpCaller,
    name: string,
    args: Record<string, unknown>,
    onProgress?: (p: Progress) => void,
  ): Promise<CallToolResult> {
    const text = JSON.stringify(args);
    const bytes = new TextEncoder().encode(text);
    const digest = hex(await crypto.subtle.digest("SHA-256", bytes));
    const started = performance.now();
    let outcome = "ok";
    try {
      if (bytes.byteLength > this.deps.bounds.maxBytes) {
        throw new AppError("body_too_large", { max: this.deps.bounds.maxBytes });
      }
      const guard = toolGuard(this.deps.guard.forChain(caller.chain));
      const sent = guard ? await guard.arguments(args) : args;
      const result = await this.#route(caller, name, sent, onProgress);
      if (result.isError) outcome = "tool_error";
      return guard ? await guard.answer(result) : result;
    } catch (e) {
      outcome = e instanceof AppError ? e.code : "mcp_call_failed";
      throw e;
    } finally {
      await this.deps.audit.record(
        caller.actor,
        "mcp.call",
        { kind: "mcp_tool", id: name, orgId: caller.place.orgId },
        null,
        {
          tool: name,
          outcome,
          argumentsBytes: bytes.byteLength,
          argumentsSha256: digest,
          durationMs: Math.round(performance.now() - started),
        },
      );
    }
  }

  async #route(
    caller: McpCaller,
    name: string,
    args: Record<string, unknown>,
    onProgress?: (p: Progress) => void,
  ): Promise<CallToolResult> {
    const dot = name.indexOf(".");
    const server = dot > 0 ? name.slice(0, dot) : "";
    const tool = name.slice(dot + 1);
    const eff = this.deps.limits.effective(caller.chain);
    // Not granted and not there read the same, so a key cannot probe what exists.
    const missing = () => new AppError("mcp_tool_not_found", { tool: name });
    if (!server || !this.deps.limits.toolGranted(eff, name)) throw missing();
    if (server === ownServerName) {
      const own = this.deps.own.get(tool);
      if (!own) throw missing();
      return asResult(await own.run(caller, args));
    }
    const entry = await this.deps.servers.get(server);
    const authorizing = entry?.auth === "oauth" && tool === "authorize";
    if (!entry || !(offers(entry, tool) || authorizing)) throw missing();
    await this.#admit(caller, entry);
    try {
      const credentials = await this.deps.credentials.of(entry, caller);
      if (authorizing) return authorizedAlready(entry);
      const result = await callUpstreamTool(
        entry,
        headersOf(caller),
        this.deps.bounds,
        credentials,
        { name: tool, arguments: args },
        onProgress,
      );
      await this.deps.guards.succeeded(server);
      return result;
    } catch (e) {
      // The caller's own standing (not authorised yet) says nothing of the server's health.
      if (e instanceof AppError) throw e;
      const refused = await this.deps.credentials.refused(entry, caller, e);
      if (refused) throw refused;
      await this.deps.guards.failed(server);
      throw new AppError("mcp_call_failed", { tool: name, detail: (e as Error).message });
    }
  }

  /** The breaker, then the caller's calls per minute on this server. */
  async #admit(caller: McpCaller, entry: McpServerEntry): Promise<void> {
    if (await this.deps.guards.isOpen(entry.name)) {
      throw new AppError(
        "mcp_server_unavailable",
        {
          server: entry.name,
          retry: breakerOpenMs / 1000,
        },
        null,
        { retryAfterS: breakerOpenMs / 1000 },
      );
    }
    const wait = await this.deps.guards.take(caller.key.id, entry.name, entry.rate);
    if (wait !== null) {
      throw new AppError(
        "rate_limited",
        {
          limit: "MCP calls per minute",
          level: `server ${entry.name}`,
          used: entry.rate ?? 0,
          max: entry.rate ?? 0,
          reset: `${wait} s`,
        },
        null,
        { retryAfterS: wait },
      );
    }
  }

  /** The server's tools as narrowed at registration; a failure to list counts on its breaker. */
  async #toolsOf(entry: McpServerEntry, caller: McpCaller): Promise<Tool[]> {
    const now = this.deps.clock.now();
    // Each person's own account may see other tools: an oauth server's list is theirs.
    const listKey = entry.auth === "oauth" ? `${entry.name}\u0000${caller.key.userId}` : entry.name;
    const cached = this.#lists.get(listKey);
    if (cached && cached.updatedAt === entry.updatedAt && now - cached.at < listCacheMs) {
      return cached.tools;
    }
    try {
      const credentials = await this.deps.credentials.of(entry, caller);
      const all = await listUpstreamTools(entry, headersOf(caller), this.deps.bounds, credentials);
      const tools = all.filter((t) => offers(entry, t.name));
      await this.deps.guards.succeeded(entry.name);
      this.#lists.set(listKey, { at: now, updatedAt: entry.updatedAt, tools });
      return tools;
    } catch (e) {
      const refused = e instanceof AppError
        ? e
        : await this.deps.credentials.refused(entry, caller, e);
      if (refused?.code === "mcp_authorization_needed") {
        return [authorizeTool(entry, String(refused.params.url))];
      }
      await this.deps.guards.failed(entry.name);
      this.#lists.delete(listKey);
      this.deps.logger.warn("mcp server tool list failed", {
        server: entry.name,
        error: (e as Error).message,
      });
      return [];
    }
  }
}

function offers(entry: McpServerEntry, tool: string): boolean {
  return entry.tools === null || entry.tools.some((p) => globMatch(p, tool));
}

function headersOf(caller: McpCaller): CallerHeaders {
  return {
    keyId: caller.key.id,
    personId: caller.key.userId,
    projectId: caller.key.projectId,
  };
}

function asResult(value: unknown): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
