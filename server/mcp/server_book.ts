/**
 * The company MCP servers registered behind /mcp. Read from the store on every use, not cached,
 * so every control plane sees a registration or removal at once. A row holds where each
 * credential is read from, never the credential.
 */
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../../core/errors.ts";
import type { Store } from "../../db/store.ts";
import { mcpServers } from "../../db/schema.ts";

export interface McpServerEntry {
  name: string;
  url: string;
  /** Header name -> the file its value is read from on every call. */
  headers: Record<string, string>;
  /** Calls per minute per caller; null is unlimited. */
  rate: number | null;
  /** The server narrowed to these of its own tool names (globs); null offers them all. */
  tools: string[] | null;
  /** `headers`: one shared credential from files; `oauth`: each person's own token. */
  auth: McpAuth;
  /** The gateway's OAuth client at the server's authorization server, sealed; null until registered. */
  oauthClient: string | null;
  createdAt: number;
  updatedAt: number;
}

export type McpAuth = "headers" | "oauth";

export type McpServerInput = Pick<
  McpServerEntry,
  "name" | "url" | "headers" | "rate" | "tools" | "auth"
>;

/** `llmgw` is the cluster's own server; a dot would make `server.tool` ambiguous. */
const serverName = /^[a-z][a-z0-9_-]{0,39}$/;
export const ownServerName = "llmgw";

/**
 * An address must be http(s) and may not carry a password (or any user part): credentials go
 * in header files, where they stay out of the store, the audit trail and error text.
 */
export function checkServerInput(input: McpServerInput): void {
  if (!serverName.test(input.name) || input.name === ownServerName) {
    throw new AppError("invalid_request", {
      detail: `name must be lowercase letters, digits, - or _ (and not '${ownServerName}')`,
    }, "name");
  }
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new AppError("invalid_request", { detail: "url is not a URL" }, "url");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError("invalid_request", { detail: "url must be http or https" }, "url");
  }
  if (url.username || url.password) {
    throw new AppError("invalid_request", {
      detail: "url may not carry a user or password; give credentials as header files",
    }, "url");
  }
  if (
    input.auth === "oauth" && Object.keys(input.headers).some((h) => /^authorization$/i.test(h))
  ) {
    throw new AppError("invalid_request", {
      detail: "an oauth server takes each person's token as its Authorization header",
    }, "headers");
  }
  for (const [header, file] of Object.entries(input.headers)) {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(header)) {
      throw new AppError("invalid_request", { detail: `bad header name '${header}'` }, "headers");
    }
    if (!file.startsWith("/")) {
      throw new AppError("invalid_request", {
        detail: `the file for ${header} must be an absolute path on the control plane`,
      }, "headers");
    }
  }
}

export class McpServerBook {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async list(): Promise<McpServerEntry[]> {
    return await this.deps.store.db.select().from(mcpServers).orderBy(mcpServers.name);
  }

  async get(name: string): Promise<McpServerEntry | undefined> {
    const rows = await this.deps.store.db.select().from(mcpServers).where(
      eq(mcpServers.name, name),
    );
    return rows[0];
  }

  /** Registers or replaces a server; a replaced header file is simply no longer read. */
  async put(input: McpServerInput): Promise<McpServerEntry> {
    checkServerInput(input);
    const now = this.deps.clock.now();
    const before = await this.get(input.name);
    const row: McpServerEntry = {
      ...input,
      // A client registered at one address's authorization server means nothing at another's.
      oauthClient: before?.url === input.url ? before.oauthClient : null,
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    };
    await this.deps.store.write((tx) =>
      tx.insert(mcpServers).values(row).onConflictDoUpdate({ target: mcpServers.name, set: row })
    );
    return row;
  }

  /** Keeps the gateway's OAuth client registration (sealed); the registration is otherwise unchanged. */
  async setOAuthClient(name: string, sealed: string): Promise<void> {
    await this.deps.store.write((tx) =>
      tx.update(mcpServers).set({ oauthClient: sealed }).where(eq(mcpServers.name, name))
    );
  }

  async remove(name: string): Promise<boolean> {
    const before = await this.get(name);
    if (!before) return false;
    await this.deps.store.write((tx) => tx.delete(mcpServers).where(eq(mcpServers.name, name)));
    return true;
  }
}

/** What an entry says about itself, never where its credentials are read from beyond the header names. */
export function describeServer(e: McpServerEntry) {
  const headerNames = Object.keys(e.headers);
  return {
    name: e.name,
    url: e.url,
    headers: headerNames,
    rate: e.rate,
    tools: e.tools,
    auth: e.auth,
    shared_credential: headerNames.length > 0,
    note: headerNames.length > 0
      ? "One shared service credential: every key granted this server's tools acts with that account's rights. Narrow it with tools, and grant it only where that is meant."
      : null,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}
