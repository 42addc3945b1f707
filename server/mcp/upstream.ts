/**
 * The client side: one short MCP session to a company server per list or call, made with the
 * official SDK over Streamable HTTP. Short sessions keep the control plane stateless (any of
 * several may serve the next call) and let each call read its credentials afresh.
 */
import {
  type CallToolResult,
  Client,
  type Progress,
  StreamableHTTPClientTransport,
  type Tool,
} from "./sdk.ts";
import type { McpServerEntry } from "./server_book.ts";

/** Who is calling, told to the company server so it can log and decide per person. */
export interface CallerHeaders {
  keyId: string;
  personId: string | null;
  projectId: string | null;
}

export interface UpstreamBounds {
  timeoutMs: number;
  maxBytes: number;
}

/** A company server's failure as the gateway tells it: scrubbed text, and its HTTP status if any. */
export class UpstreamError extends Error {
  constructor(message: string, readonly status: number | undefined) {
    super(message);
  }
}

/** An answer over the size bound, cut while it streams in rather than after it is all read. */
export class TooLargeError extends Error {
  override name = "TooLargeError";
}

/**
 * Each header's value, read from its file now: a rotated file applies to the next call, and a
 * value lives only for the call it is sent with.
 */
export async function readCredentials(entry: McpServerEntry): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [header, file] of Object.entries(entry.headers)) {
    // The path stays on the control plane: a caller learns only that the credential is missing.
    const value = (await Deno.readTextFile(file).catch(() => {
      throw new Error(`the credential for ${header} cannot be read on the control plane`);
    })).trim();
    // A file given as --bearer-file holds the bare token; the header says how to send it.
    out[header] = header.toLowerCase() === "authorization" && !/\s/.test(value)
      ? `Bearer ${value}`
      : value;
  }
  return out;
}

function callerHeaders(caller: CallerHeaders): Record<string, string> {
  const h: Record<string, string> = { "x-llmgw-key-id": caller.keyId };
  if (caller.personId) h["x-llmgw-person-id"] = caller.personId;
  if (caller.projectId) h["x-llmgw-project-id"] = caller.projectId;
  return h;
}

/** fetch whose answers may not exceed `maxBytes`: a body that grows past it errors mid-stream. */
function boundedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            controller.error(new TooLargeError(`answer over ${maxBytes} bytes`));
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

async function open(
  entry: McpServerEntry,
  caller: CallerHeaders,
  bounds: UpstreamBounds,
  signal: AbortSignal,
  credentials: Record<string, string>,
): Promise<Client> {
  const headers = { ...callerHeaders(caller), ...credentials };
  const transport = new StreamableHTTPClientTransport(new URL(entry.url), {
    requestInit: { headers, signal },
    fetch: boundedFetch(bounds.maxBytes),
  });
  const client = new Client({ name: "llmgw", version: "1" });
  await client.connect(transport, { timeout: bounds.timeoutMs, signal });
  return client;
}

/** Runs `use` in a session that cannot outlive the bound, and always closes it. */
async function withSession<T>(
  entry: McpServerEntry,
  caller: CallerHeaders,
  bounds: UpstreamBounds,
  credentials: Record<string, string>,
  use: (client: Client, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const signal = AbortSignal.timeout(bounds.timeoutMs);
  let client: Client | undefined;
  try {
    client = await open(entry, caller, bounds, signal, credentials);
    return await use(client, signal);
  } catch (e) {
    throw scrubbed(e, credentials);
  } finally {
    await client?.close().catch(() => {});
  }
}

/**
 * The error with every credential's text taken out: a server that echoes its request back in
 * an error must not hand the credential to the client through the gateway's answer.
 */
function scrubbed(e: unknown, credentials: Record<string, string>): UpstreamError {
  let message = e instanceof Error ? e.message : String(e);
  if (signalTimedOut(e)) message = "cut at the time bound";
  for (const value of Object.values(credentials)) {
    for (const part of [value, value.replace(/^Bearer\s+/i, "")]) {
      if (part.length >= 4) message = message.replaceAll(part, "<secret>");
    }
  }
  // The SDK's StreamableHTTPError keeps the HTTP status as `code`: a 401 means the token was refused.
  const code = (e as { code?: unknown } | null)?.code;
  const out = new UpstreamError(message, typeof code === "number" ? code : undefined);
  out.name = e instanceof Error ? e.name : "Error";
  return out;
}

function signalTimedOut(e: unknown): boolean {
  return e instanceof DOMException && (e.name === "TimeoutError" || e.name === "AbortError");
}

export async function listUpstreamTools(
  entry: McpServerEntry,
  caller: CallerHeaders,
  bounds: UpstreamBounds,
  credentials: Record<string, string>,
): Promise<Tool[]> {
  return await withSession(entry, caller, bounds, credentials, async (client, signal) => {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, {
        timeout: bounds.timeoutMs,
        signal,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    return tools;
  });
}

export async function callUpstreamTool(
  entry: McpServerEntry,
  caller: CallerHeaders,
  bounds: UpstreamBounds,
  credentials: Record<string, string>,
  call: { name: string; arguments: Record<string, unknown> },
  onProgress?: (p: Progress) => void,
): Promise<CallToolResult> {
  return await withSession(entry, caller, bounds, credentials, async (client, signal) => {
    const result = await client.callTool(call, undefined, {
      timeout: bounds.timeoutMs,
      maxTotalTimeout: bounds.timeoutMs,
      signal,
      ...(onProgress ? { onprogress: onProgress } : {}),
    });
    return result as CallToolResult;
  });
}
