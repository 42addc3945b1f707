/**
 * Per-person credentials for company MCP servers registered as `oauth`, as MCP's authorization
 * spec has it: the company server is an OAuth 2.1 resource server, found from its protected
 * resource metadata (the `WWW-Authenticate` of a 401, else the well-known address) and its
 * authorization server's metadata; the gateway is the OAuth client (registered dynamically),
 * using PKCE, with the portal as its redirect. Each person authorises once; their tokens are
 * sealed in the store with the cluster secret and refreshed when they expire.
 *
 * The pending authorisation (the PKCE verifier, the person, the server) travels sealed in the
 * `state` parameter, so no table holds it and any control plane can take the redirect back.
 * Tokens never leave the control plane: not to the client, a log, an audit row or error text.
 */
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import { mcpPersonTokens } from "../../db/schema.ts";
import type { Store } from "../../db/store.ts";
import type { Sealer } from "../auth/seal.ts";
import {
  type AuthorizationServerMetadata,
  type CallToolResult,
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractResourceMetadataUrl,
  type OAuthClientInformationFull,
  type OAuthTokens,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  type Tool,
} from "./sdk.ts";
import type { McpServerBook, McpServerEntry } from "./server_book.ts";

/** Where in the portal a person authorises a server, and where the authorization server sends them back. */
export const connectPath = (server: string) => `/connect/mcp/${encodeURIComponent(server)}`;
export const callbackPath = "/connect/mcp-callback";

/** How long a person has to approve at the authorization server. */
const pendingMs = 10 * 60_000;
/** A token this close to its expiry is refreshed before use. */
const earlyMs = 30_000;

/** The gateway's client at a server's authorization server, as kept (sealed) on its registration. */
interface OAuthClient {
  authorizationServerUrl: string;
  metadata: AuthorizationServerMetadata | undefined;
  resource: string;
  /** The scopes the resource says it takes, asked for all at once. */
  scope: string | undefined;
  client: OAuthClientInformationFull;
}

interface Pending {
  server: string;
  userId: string;
  verifier: string;
  redirect: string;
  expires: number;
}

export interface PersonAuthDeps {
  store: Store;
  clock: Clock;
  sealer: Sealer;
  servers: Pick<McpServerBook, "get" | "setOAuthClient">;
  /** The bound on each request to the authorization server, in ms. */
  timeoutMs: number;
}

export class PersonAuth {
  constructor(private readonly deps: PersonAuthDeps) {}

  /** The address at the server's authorization server where the person approves. */
  async begin(server: string, userId: string, origin: string): Promise<URL> {
    const entry = await this.#oauthServer(server);
    const redirect = `${origin}${callbackPath}`;
    const oc = await this.#client(entry, redirect);
    const pending: Pending = {
      server,
      userId,
      verifier: "",
      redirect,
      expires: this.deps.clock.now() + pendingMs,
    };
    // The verifier is made with the address; the state that carries it is sealed after.
    const { authorizationUrl, codeVerifier } = await startAuthorization(
      oc.authorizationServerUrl,
      {
        ...(oc.metadata ? { metadata: oc.metadata } : {}),
        clientInformation: oc.client,
        redirectUrl: redirect,
        resource: oc.resource,
        ...(oc.scope ? { scope: oc.scope } : {}),
      },
    );
    pending.verifier = codeVerifier;
    authorizationUrl.searchParams.set(
      "state",
      await this.deps.sealer.seal(JSON.stringify(pending)),
    );
    return authorizationUrl;
  }

  /** Takes the redirect back: the code exchanged and the tokens sealed; the server's name. */
  async finish(state: string, code: string, userId: string): Promise<string> {
    const text = await this.deps.sealer.unseal(state);
    const pending = text === null ? null : JSON.parse(text) as Pending;
    // Another person's redirect (a link passed on) or a stale one is refused, never taken.
    if (!pending || pending.userId !== userId || pending.expires < this.deps.clock.now()) {
      throw new AppError("invalid_request", {
        detail: "this authorisation is not yours or has expired; start it again",
      });
    }
    const entry = await this.#oauthServer(pending.server);
    const oc = await this.#client(entry, pending.redirect);
    const tokens = await exchangeAuthorization(oc.authorizationServerUrl, {
      ...(oc.metadata ? { metadata: oc.metadata } : {}),
      clientInformation: oc.client,
      authorizationCode: code,
      codeVerifier: pending.verifier,
      redirectUri: pending.redirect,
      resource: oc.resource,
      fetchFn: this.#fetch,
    }).catch((e) => {
      throw failed(entry.name, e);
    });
    await this.#save(entry.name, userId, tokens);
    return entry.name;
  }

  /**
   * The person's access token for the server, refreshed when it is about to expire; a clear
   * error with the portal address when they have not authorised (or their grant is gone).
   */
  async bearer(entry: McpServerEntry, userId: string | null, origin: string): Promise<string> {
    const needed = () => this.needed(entry, origin);
    if (!userId) throw needed();
    const row = await this.#row(entry.name, userId);
    const text = row ? await this.deps.sealer.unseal(row.sealed) : null;
    if (!row || text === null) throw needed();
    const tokens = JSON.parse(text) as OAuthTokens;
    if (row.expiresAt === null || this.deps.clock.now() < row.expiresAt - earlyMs) {
      return tokens.access_token;
    }
    if (!tokens.refresh_token) {
      await this.forget(entry.name, userId);
      throw needed();
    }
    try {
      const oc = await this.#client(entry, null);
      const fresh = await refreshAuthorization(oc.authorizationServerUrl, {
        ...(oc.metadata ? { metadata: oc.metadata } : {}),
        clientInformation: oc.client,
        refreshToken: tokens.refresh_token,
        resource: oc.resource,
        fetchFn: this.#fetch,
      });
      // Some servers keep the refresh token and send none back: the old one still holds.
      await this.#save(entry.name, userId, {
        ...fresh,
        refresh_token: fresh.refresh_token ?? tokens.refresh_token,
      });
      return fresh.access_token;
    } catch {
      // Another control plane may have refreshed first (a rotated refresh token is spent).
      const again = await this.#row(entry.name, userId);
      if (again && again.updatedAt !== row.updatedAt) {
        return await this.bearer(entry, userId, origin);
      }
      await this.forget(entry.name, userId);
      throw needed();
    }
  }

  /** The error that tells a person where to authorise the server. */
  needed(entry: McpServerEntry, origin: string): AppError {
    return new AppError("mcp_authorization_needed", {
      server: entry.name,
      url: `${origin}${connectPath(entry.name)}`,
    });
  }

  /** The servers the person has authorised. */
  async connected(userId: string): Promise<Set<string>> {
    const rows = await this.deps.store.db.select({ server: mcpPersonTokens.server })
      .from(mcpPersonTokens).where(eq(mcpPersonTokens.userId, userId));
    return new Set(rows.map((r) => r.server));
  }

  async forget(server: string, userId: string): Promise<void> {
    await this.deps.store.write((tx) =>
      tx.delete(mcpPersonTokens).where(
        and(eq(mcpPersonTokens.server, server), eq(mcpPersonTokens.userId, userId)),
      )
    );
  }

  async #row(server: string, userId: string) {
    const rows = await this.deps.store.db.select().from(mcpPersonTokens).where(
      and(eq(mcpPersonTokens.server, server), eq(mcpPersonTokens.userId, userId)),
    );
    return rows[0];
  }

  async #save(server: string, userId: string, tokens: OAuthTokens): Promise<void> {
    const now = this.deps.clock.now();
    const row = {
      server,
      userId,
      sealed: await this.deps.sealer.seal(JSON.stringify(tokens)),
      expiresAt: tokens.expires_in === undefined ? null : now + tokens.expires_in * 1000,
      updatedAt: now,
    };
    await this.deps.store.write((tx) =>
      tx.insert(mcpPersonTokens).values(row).onConflictDoUpdate({
        target: [mcpPersonTokens.server, mcpPersonTokens.userId],
        set: row,
      })
    );
  }

  async #oauthServer(name: string): Promise<McpServerEntry> {
    const entry = await this.deps.servers.get(name);
    if (!entry || entry.auth !== "oauth") {
      throw new AppError("not_found", { path: connectPath(name) });
    }
    return entry;
  }

  /**
   * The gateway's client at the server's authorization server: the one kept, while it knows
   * `redirect` (null: any), else discovered and registered afresh (and kept, sealed).
   */
  async #client(entry: McpServerEntry, redirect: string | null): Promise<OAuthClient> {
    const kept = entry.oauthClient ? await this.deps.sealer.unseal(entry.oauthClient) : null;
    if (kept) {
      const oc = JSON.parse(kept) as OAuthClient;
      if (redirect === null || oc.client.redirect_uris.includes(redirect)) return oc;
    }
    if (redirect === null) throw new Error("no OAuth client is registered for this server");
    const oc = await this.#register(entry, redirect).catch((e) => {
      throw failed(entry.name, e);
    });
    await this.deps.servers.setOAuthClient(
      entry.name,
      await this.deps.sealer.seal(JSON.stringify(oc)),
    );
    return oc;
  }

  async #register(entry: McpServerEntry, redirect: string): Promise<OAuthClient> {
    const info = await discoverOAuthServerInfo(entry.url, {
      ...(await this.#resourceMetadataUrl(entry.url)),
      fetchFn: this.#fetch,
    });
    const metadata = info.authorizationServerMetadata;
    if (!metadata?.registration_endpoint) {
      throw new Error("its authorization server offers no dynamic client registration");
    }
    const client = await registerClient(info.authorizationServerUrl, {
      metadata,
      clientMetadata: {
        client_name: "llmgw",
        redirect_uris: [redirect],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      fetchFn: this.#fetch,
    });
    return {
      authorizationServerUrl: info.authorizationServerUrl,
      metadata,
      resource: info.resourceMetadata?.resource ?? entry.url,
      scope: info.resourceMetadata?.scopes_supported?.join(" "),
      client,
    };
  }

  /** The resource metadata's address as the server's 401 names it (the spec's first way). */
  async #resourceMetadataUrl(url: string): Promise<{ resourceMetadataUrl?: URL }> {
    const res = await this.#fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
    }).catch(() => undefined);
    if (!res) return {};
    const found = res.status === 401 ? extractResourceMetadataUrl(res) : undefined;
    await res.body?.cancel();
    return found ? { resourceMetadataUrl: found } : {};
  }

  /** Every request to the server or its authorization server, bounded in time. */
  #fetch = (input: string | URL, init?: RequestInit): Promise<Response> =>
    fetch(input, { ...init, signal: AbortSignal.timeout(this.deps.timeoutMs) });
}

/** An authorization server's failure, told without anything it echoed of the request. */
function failed(server: string, e: unknown): AppError {
  const detail = e instanceof Error ? e.message.slice(0, 200) : "no answer";
  return new AppError("mcp_call_failed", { tool: `${server} (authorisation)`, detail });
}

/** What a person who has not authorised sees of the server in tools/list: how to. */
export function authorizeTool(entry: McpServerEntry, url: string): Tool {
  return {
    name: "authorize",
    description:
      `${entry.name} acts for each person with their own account. Open ${url} in a browser, sign in and approve; then ${entry.name}'s tools are listed here.`,
    inputSchema: { type: "object", properties: {} },
  };
}

/** `NAME.authorize` called by a person who has: nothing more to do. */
export function authorizedAlready(entry: McpServerEntry): CallToolResult {
  return {
    content: [{ type: "text", text: `You have authorised ${entry.name}; its tools are listed.` }],
  };
}
