/**
 * The parts of `@modelcontextprotocol/sdk` the gateway (and its tests' company server) uses, imported in one place. The SDK's
 * `./*` export maps `x.js` to types at `x.js.d.ts`, which Deno's type checker takes literally;
 * each value import therefore names its types with `@ts-types` (the same module without `.js`).
 */
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
export { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
export { Client } from "@modelcontextprotocol/sdk/client";
export { Server } from "@modelcontextprotocol/sdk/server";
export type { CallToolResult, Progress, Tool } from "@modelcontextprotocol/sdk/types";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
export {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractResourceMetadataUrl,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
export type {
  AuthorizationServerMetadata,
  OAuthClientInformationFull,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth";
