/**
 * `/mcp`: MCP's Streamable HTTP transport for API keys. Each request gets its own protocol
 * server over the SDK's stateless transport, so any control plane can answer any request. The
 * session header is kept all the same: the id handed out at `initialize` is bound to the key by
 * a digest anyone can recompute, so it needs no table and no shared memory. It carries no
 * authority (the key is checked on every request); it only tells a session apart.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import type { KeyService } from "../keys/keys.ts";
import { readJsonBody } from "../router/read_body.ts";
import { requireApiKey } from "../routes/require_api_key.ts";
import type { Tenancy } from "../tenancy/tenancy.ts";
import { callerOf, type McpCaller } from "./caller.ts";
import type { McpGateway } from "./gateway.ts";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Progress,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "./sdk.ts";

export interface McpRouteDeps {
  keys: Pick<KeyService, "check">;
  people: { tenancy: Tenancy };
  gateway: Pick<McpGateway, "listTools" | "callTool">;
  /** The largest request body read, in bytes. */
  maxBytes: number;
  /** The configured public address; else each request's own origin. */
  publicUrl: string;
}

const sessionHeader = "mcp-session-id";

export function mcpRoutes(deps: McpRouteDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requireApiKey(deps));
  // No stream for server-initiated messages and no session to end: 405 is the spec's way to say so.
  app.on(["GET", "DELETE"], "/", (c) => c.body(null, 405, { allow: "POST" }));
  app.post("/", async (c) => {
    const key = c.get("apiKey");
    const presented = c.req.header(sessionHeader);
    if (presented !== undefined && !(await sessionOk(presented, key.id))) {
      return c.json(
        { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
        404,
      );
    }
    const body = await readJsonBody(c.req.raw, deps.maxBytes);
    const portal = deps.publicUrl.replace(/\/+$/, "") || new URL(c.req.url).origin;
    const server = protocolServer(deps.gateway, callerOf(deps.people.tenancy, key, portal));
    // No session id generator: the SDK's stateless mode.
    const transport = new WebStandardStreamableHTTPServerTransport({
      // A call is bounded in time itself; a stream that outlives its answer holds nothing.
      keepAliveMs: 0,
    });
    await server.connect(transport);
    const res = await transport.handleRequest(c.req.raw, { parsedBody: body });
    const headers = new Headers(res.headers);
    if (body.method === "initialize" && res.ok) {
      headers.set(sessionHeader, await newSession(key.id));
    }
    return new Response(res.body, { status: res.status, headers });
  });
  return app;
}

/** One request's protocol server: the gateway's tools for this caller. */
function protocolServer(gateway: McpRouteDeps["gateway"], caller: McpCaller): Server {
  const server = new Server(
    { name: "llmgw", version: "1" },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        "Tools are named server.tool; llmgw.* are the cluster's own, read-only. You see only the tools granted to your key.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: await gateway.listTools(caller),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    const onProgress = token === undefined ? undefined : (p: Progress) => {
      extra.sendNotification({
        method: "notifications/progress",
        params: { ...p, progressToken: token },
      }).catch(() => {});
    };
    try {
      return await gateway.callTool(
        caller,
        req.params.name,
        req.params.arguments ?? {},
        onProgress,
      );
    } catch (e) {
      return failure(e);
    }
  });
  return server;
}

/** An unknown tool is the protocol's error; anything else is the tool's, told to the model. */
function failure(e: unknown): CallToolResult {
  if (e instanceof AppError && e.code === "mcp_tool_not_found") {
    throw new McpError(ErrorCode.InvalidParams, e.message);
  }
  const text = e instanceof AppError ? e.message : "internal error";
  return { isError: true, content: [{ type: "text", text }] };
}

async function digest(text: string): Promise<string> {
  const buf = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(buf)].slice(0, 16).map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

async function newSession(keyId: string): Promise<string> {
  const nonce = crypto.randomUUID().replaceAll("-", "");
  return `${nonce}.${await digest(`${nonce}:${keyId}`)}`;
}

/** A session is this key's when its digest matches: another key's id is not found here. */
async function sessionOk(id: string, keyId: string): Promise<boolean> {
  const [nonce, sig, ...rest] = id.split(".");
  if (!nonce || !sig || rest.length > 0) return false;
  return sig === await digest(`${nonce}:${keyId}`);
}
