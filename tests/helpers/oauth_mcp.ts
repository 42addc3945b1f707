/**
 * A company MCP server that acts for each person, for tests: an OAuth 2.1 authorization server
 * (metadata, dynamic client registration, an authorize endpoint that approves at once for the
 * account the test names, PKCE-checked codes, refresh tokens that rotate) and a resource server
 * written with the MCP SDK that takes only its access tokens (JWTs signed with jose), answering
 * 401 with the protected resource metadata's address, as MCP's authorization spec has it. Both on
 * real loopback ports.
 */
import { jwtVerify, SignJWT } from "jose";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "../../server/mcp/sdk.ts";

export interface OAuthMcp {
  /** The MCP server's address (register it behind the gateway). */
  url: string;
  issuer: string;
  /** Whose account the authorize endpoint approves for next. */
  user: string;
  /** Access tokens' lifetime, in seconds, as told in each token answer. */
  expiresIn: number;
  /** Every access and refresh token issued. */
  issued: string[];
  refreshes: number;
  registrations: number;
  /** The subjects of the tokens the MCP server was called with. */
  callers: string[];
  /** True: the MCP server refuses every token issued so far (revoked), answering 401. */
  revoked: boolean;
  close(): Promise<void>;
}

interface Code {
  challenge: string;
  clientId: string;
  redirect: string;
  resource: string | null;
  user: string;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

async function s256(verifier: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return btoa(String.fromCharCode(...new Uint8Array(d))).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
}

export function startOAuthMcp(): OAuthMcp {
  const key = crypto.getRandomValues(new Uint8Array(32));
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, { user: string; clientId: string }>();
  const clients = new Map<string, string[]>();
  const state = {
    user: "nobody",
    expiresIn: 3600,
    issued: [] as string[],
    refreshes: 0,
    registrations: 0,
    callers: [] as string[],
    revoked: false,
  };
  let issuer = "";
  let resource = "";

  const tokens = async (user: string, clientId: string) => {
    const access = await new SignJWT({ client_id: clientId })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(user)
      .setIssuer(issuer)
      .setAudience(resource)
      .setIssuedAt()
      .setExpirationTime("2h")
      .sign(key);
    const refresh = `rt-${crypto.randomUUID()}`;
    refreshTokens.set(refresh, { user, clientId });
    state.issued.push(access, refresh);
    return json({
      access_token: access,
      token_type: "Bearer",
      expires_in: state.expiresIn,
      refresh_token: refresh,
    });
  };

  const authorizationServer = async (req: Request, url: URL): Promise<Response> => {
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      const meta = await req.json() as { redirect_uris: string[] };
      const id = `client-${++state.registrations}`;
      clients.set(id, meta.redirect_uris);
      return json({ ...meta, client_id: id, client_id_issued_at: 0 }, 201);
    }
    if (url.pathname === "/authorize") {
      const q = url.searchParams;
      const redirect = q.get("redirect_uri") ?? "";
      const clientId = q.get("client_id") ?? "";
      if (!clients.get(clientId)?.includes(redirect) || q.get("code_challenge_method") !== "S256") {
        return new Response("bad authorization request", { status: 400 });
      }
      const code = `code-${crypto.randomUUID()}`;
      codes.set(code, {
        challenge: q.get("code_challenge") ?? "",
        clientId,
        redirect,
        resource: q.get("resource"),
        user: state.user,
      });
      const back = new URL(redirect);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      return new Response(null, { status: 302, headers: { location: back.href } });
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const f = new URLSearchParams(await req.text());
      if (f.get("grant_type") === "authorization_code") {
        const c = codes.get(f.get("code") ?? "");
        codes.delete(f.get("code") ?? "");
        if (
          !c || c.clientId !== f.get("client_id") || c.redirect !== f.get("redirect_uri") ||
          c.challenge !== await s256(f.get("code_verifier") ?? "") || c.resource !== resource
        ) {
          return json({ error: "invalid_grant" }, 400);
        }
        return await tokens(c.user, c.clientId);
      }
      if (f.get("grant_type") === "refresh_token") {
        const r = refreshTokens.get(f.get("refresh_token") ?? "");
        // Rotated: a refresh token is spent once used.
        refreshTokens.delete(f.get("refresh_token") ?? "");
        if (!r) return json({ error: "invalid_grant" }, 400);
        state.refreshes++;
        return await tokens(r.user, r.clientId);
      }
      return json({ error: "unsupported_grant_type" }, 400);
    }
    return new Response("not found", { status: 404 });
  };

  const unauthorized = () =>
    new Response("unauthorized", {
      status: 401,
      headers: {
        "www-authenticate":
          `Bearer resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`,
      },
    });

  const resourceServer = async (req: Request, url: URL): Promise<Response> => {
    if (url.pathname === "/.well-known/oauth-protected-resource/mcp") {
      return json({ resource, authorization_servers: [issuer] });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    if (!bearer || state.revoked) return unauthorized();
    let sub: string;
    try {
      const { payload } = await jwtVerify(bearer, key, { issuer, audience: resource });
      sub = payload.sub ?? "";
    } catch {
      return unauthorized();
    }
    state.callers.push(sub);
    const server = new McpServer({ name: "wiki", version: "1" });
    server.registerTool("whoami", { description: "Who the token is for" }, () => ({
      content: [{ type: "text", text: `you are ${sub}` }],
    }));
    const transport = new WebStandardStreamableHTTPServerTransport({ keepAliveMs: 0 });
    await server.connect(transport);
    return await transport.handleRequest(req);
  };

  const srv = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    return url.pathname === "/mcp" || url.pathname.startsWith("/.well-known/oauth-protected")
      ? resourceServer(req, url)
      : authorizationServer(req, url);
  });
  issuer = `http://127.0.0.1:${(srv.addr as Deno.NetAddr).port}`;
  resource = `${issuer}/mcp`;
  return Object.assign(state, {
    url: resource,
    issuer,
    close: () => srv.shutdown(),
  });
}
