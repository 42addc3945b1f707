/**
 * A company's MCP server for tests: written with the same SDK, on a real loopback port, over
 * Streamable HTTP (stateless). It asks for one bearer token and records what each request told
 * it. Paths: `/mcp` works; `/broken` answers 500 to everything; `/leaky` answers 500 with the
 * credential it was sent in the body, as a careless server might.
 */
import { z } from "zod";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "../../server/mcp/sdk.ts";

export interface CompanyMcp {
  url: string;
  /** Each request's headers as the server saw them. */
  seen: Headers[];
  /** Requests that reached the server, on any path. */
  hits: number;
  close(): Promise<void>;
}

function protocolServer(): McpServer {
  const server = new McpServer({ name: "jira", version: "1" });
  server.registerTool("search", {
    description: "Search issues",
    inputSchema: { query: z.string() },
  }, ({ query }) => ({ content: [{ type: "text", text: `found: ${query}` }] }));
  server.registerTool("delete_everything", {
    description: "A tool the registration narrows away",
    inputSchema: {},
  }, () => ({ content: [{ type: "text", text: "gone" }] }));
  server.registerTool("slow", {
    description: "Reports progress, then takes its time",
    inputSchema: { ms: z.number() },
  }, async ({ ms }, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: 1, total: 2, message: "started" },
      });
    }
    await new Promise((r) => setTimeout(r, ms));
    return { content: [{ type: "text", text: "done" }] };
  });
  return server;
}

export function startCompanyMcp(token: string): CompanyMcp {
  const seen: Headers[] = [];
  const state = { hits: 0 };
  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    state.hits++;
    seen.push(req.headers);
    const path = new URL(req.url).pathname;
    if (path === "/broken") return new Response("down", { status: 500 });
    if (path === "/leaky") {
      return new Response(`bad request with ${req.headers.get("authorization")}`, { status: 500 });
    }
    if (req.headers.get("authorization") !== `Bearer ${token}`) {
      return new Response("unauthorized", { status: 401 });
    }
    const server = protocolServer();
    const transport = new WebStandardStreamableHTTPServerTransport({ keepAliveMs: 0 });
    await server.connect(transport);
    return await transport.handleRequest(req);
  });
  const addr = srv.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    seen,
    get hits() {
      return state.hits;
    },
    close: () => srv.shutdown(),
  };
}
