/**
 * The sim engine's llama.cpp mode (`--quirks llamacpp`): a client's mistakes that llama-server
 * answers with a 500 are answered the same way, in its words, so CI can show that the gateway
 * reads them as the request's fault and never ejects the replica for them (no llama-server in CI).
 */
import type { MiddlewareHandler } from "hono";

export const simQuirkModes = ["off", "llamacpp"] as const;
export type SimQuirkMode = (typeof simQuirkModes)[number];

const generates = /\/(chat\/)?completions$/;

/** llama-server's answer to a request it cannot handle: a 500 with its server_error shape. */
function llamaFailure(message: string): Response {
  return Response.json({ error: { code: 500, message, type: "server_error" } }, { status: 500 });
}

/** What llama-server throws on, checked in the order it reads the body. */
function llamaRefusal(body: Record<string, unknown>, chat: boolean): string | undefined {
  if (chat && body.messages !== undefined && !Array.isArray(body.messages)) {
    return `Expected 'messages' to be an array, got ${JSON.stringify(body.messages)}`;
  }
  if (body.n !== undefined && body.n !== 1) return "Only one completion choice is allowed";
  const tools = Array.isArray(body.tools) ? body.tools : [];
  for (const t of tools) {
    const f = (t as { function?: Record<string, unknown> })?.function ?? {};
    const missing = ["name", "description", "parameters"].find((k) => !(k in f));
    if (missing) {
      return `Failed to parse tools: [json.exception.out_of_range.403] key '${missing}' not found; tools = ${
        JSON.stringify(tools)
      }`;
    }
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const image = messages.some((m) =>
    Array.isArray(m?.content) &&
    m.content.some((p: { type?: string }) => p?.type === "image_url")
  );
  if (image) {
    return "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj";
  }
  return undefined;
}

export function llamaQuirks(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== "POST" || !generates.test(c.req.path)) return await next();
    let body: unknown;
    try {
      body = await c.req.raw.clone().json();
    } catch {
      return await next();
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) return await next();
    const refusal = llamaRefusal(
      body as Record<string, unknown>,
      c.req.path.endsWith("/chat/completions"),
    );
    if (refusal) return llamaFailure(refusal);
    await next();
  };
}
