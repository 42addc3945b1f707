/**
 * One client connection, served request after request (HTTP/1.1 keep-alive) with the edge's
 * timeouts: the idle timeout until a request's first byte, the header timeout from there to the
 * end of its head, the body's minimum rate while the app reads it, the send timeout while a write
 * waits on the client to read. A client that leaves while its request is answered aborts the
 * request's signal, as the router expects of any listener. Behind a trusted proxy that speaks the
 * PROXY protocol, the header it sends first names the client.
 */
import { ConnBuffer } from "./conn_buffer.ts";
import {
  BadProxyHeader,
  parseProxyHeader,
  type ProxyProtocolMode,
  proxySignature,
} from "./proxy_protocol.ts";
import { type RequestBody, requestBody } from "./request_body.ts";
import {
  BadRequest,
  bodyFraming,
  indexOfBareLf,
  indexOfHeadEnd,
  parseRequestHead,
  type RequestHead,
  wantsKeepAlive,
} from "./request_head.ts";
import { linger, refuse } from "./refusal.ts";
import { writeResponse } from "./response_writer.ts";

export interface EdgeTimeouts {
  headerMs: number;
  idleMs: number;
  bodyGraceMs: number;
  /** 0: no minimum. */
  bodyMinBytesPerSecond: number;
  /** How long one write may wait on a client that reads nothing. */
  sendMs: number;
}

/** Why a connection was closed before a request was read, or why accept failed. */
export type RefuseReason =
  | "per_address"
  | "full"
  | "descriptors"
  | "accept_error"
  | ProxyRefusal;

/** A PROXY header from an untrusted peer, a malformed one, or none where one is required. */
export type ProxyRefusal = "proxy_untrusted" | "proxy_malformed" | "proxy_missing";

/** Why the edge closed a connection itself. */
export type CutReason =
  | "idle_timeout"
  | "header_timeout"
  | "body_too_slow"
  | "send_timeout"
  | "shed"
  | "shutdown";

/**
 * `signal` is aborted when the client leaves or the edge cuts its requests: the app watches it
 * instead of the Request's own, since a Request built around a signal costs a dependent signal
 * (about 5 µs) on every request.
 */
export type EdgeHandler = (
  req: Request,
  info: { remoteAddr: Deno.NetAddr; signal: AbortSignal },
) => Response | Promise<Response>;

/** The listener's view of the connection, kept up to date by it. */
export interface ConnTrack {
  /** Waiting for a request's first byte: it may be shed, or closed by a shutdown. */
  idle(): void;
  busy(): void;
  /** Answers from now on are the connection's last. */
  readonly draining: boolean;
  /** The request being answered: `cut` aborts it (its client seen as gone), the connection kept. */
  answering(gone: AbortController | undefined): void;
  /** Closes the connection for `reason` (a read or write under way fails). */
  cut(reason: CutReason): void;
  /**
   * Counts the connection for `address` (the client its PROXY header names) from now on; false,
   * having closed it, when that address holds all the connections it may.
   */
  claim(address: string): boolean;
  /** Closes the connection, counted and logged as refused for `reason`. */
  refuse(reason: ProxyRefusal): void;
  /** Cuts the connection for `reason` unless the next `expire` comes within `ms`; null: never. */
  expire(ms: number | null, reason?: CutReason): void;
  /** Cuts the connection for `send_timeout` unless the next `expireSend` comes within `ms`. */
  expireSend(ms: number | null): void;
  /** The connection's use is over: closes it. */
  end(): void;
}

export interface ConnOptions {
  scheme: "http" | "https";
  /** host:port for a request without a Host header. */
  authority: string;
  timeouts: EdgeTimeouts;
  /** The client behind a trusted proxy, else the peer itself. */
  clientOf(peer: string, forwardedFor: string | null): string;
  /** Whether a trusted proxy's connections start with a PROXY header. */
  proxyProtocol: ProxyProtocolMode;
  /** Whether `address` is a trusted proxy (only theirs is a PROXY header believed). */
  trusted(address: string): boolean;
  handler: EdgeHandler;
  onHandlerError(e: unknown): void;
}

const maxHeadBytes = 64 * 1024;

export async function serveConnection(
  conn: Deno.Conn,
  track: ConnTrack,
  opts: ConnOptions,
): Promise<void> {
  const io = new ConnBuffer(conn, {
    // A write waits only while the client's receive window is full: one that reads nothing
    // would hold the connection, and the answer's stream (an engine's slot), for ever.
    arm: () => track.expireSend(opts.timeouts.sendMs),
    disarm: () => track.expireSend(null),
  });
  let peer = conn.remoteAddr as Deno.NetAddr;
  const arm = (ms: number, reason: CutReason) => track.expire(ms, reason);
  const disarm = () => track.expire(null);
  let proxyRead = opts.proxyProtocol === "off";
  try {
    for (;;) {
      if (io.buffered === 0) {
        track.idle();
        arm(opts.timeouts.idleMs, "idle_timeout");
        if ((await io.fill()) === null) return;
      }
      track.busy();
      // From the first byte, the PROXY header and the request's head share the header timeout.
      arm(opts.timeouts.headerMs, "header_timeout");
      if (!proxyRead) {
        proxyRead = true;
        const client = await proxiedPeer(io, peer, track, opts);
        if (client === null) return;
        peer = client;
        // A proxy may send its header before the client sends anything: that wait is idle.
        if (io.buffered === 0) continue;
      }
      const head = await readHead(io);
      disarm();
      if (head === null) return;
      const after = await serveRequest(io, head, peer, track, opts, { arm, disarm });
      if (after === "linger") await linger(io);
      if (after !== "open") return;
    }
  } catch (e) {
    if (!(e instanceof BadRequest)) return;
    disarm();
    if (await refuse(io, e)) await linger(io);
  } finally {
    disarm();
    track.end();
  }
}

/**
 * The connection's client by its PROXY header, if it has one: a trusted proxy's is believed (when
 * `required`, it must send one), anyone else's connection that starts with one is closed. Null
 * when the connection is closed.
 */
async function proxiedPeer(
  io: ConnBuffer,
  peer: Deno.NetAddr,
  track: ConnTrack,
  opts: ConnOptions,
): Promise<Deno.NetAddr | null> {
  let sig = proxySignature(io.view());
  while (sig === "more") {
    if ((await io.fill()) === null) return null;
    sig = proxySignature(io.view());
  }
  const trusted = opts.trusted(peer.hostname);
  if (sig === "none") {
    if (!trusted || opts.proxyProtocol === "optional") return peer;
    track.refuse("proxy_missing");
    return null;
  }
  if (!trusted) {
    track.refuse("proxy_untrusted");
    return null;
  }
  try {
    for (;;) {
      const read = parseProxyHeader(io.view());
      if (read) {
        io.consume(read.length);
        if (read.header.kind === "local") return peer;
        if (!track.claim(read.header.address)) return null;
        return { transport: "tcp", hostname: read.header.address, port: read.header.port };
      }
      if ((await io.fill()) === null) return null;
    }
  } catch (e) {
    if (!(e instanceof BadProxyHeader)) throw e;
    track.refuse("proxy_malformed");
    return null;
  }
}

/**
 * A server should ignore at least one empty line before a request line (RFC 9112 §2.2): some
 * clients end a body with an extra CRLF. Two are taken; a third is a malformed request line.
 */
const maxBlankLines = 2;

/** Reads one request head; null when the client closed before sending one. */
async function readHead(io: ConnBuffer): Promise<RequestHead | null> {
  let from = 0;
  let blank = 0;
  for (;;) {
    const view = io.view();
    if (blank < maxBlankLines && from === 0 && view[0] === 13) {
      if (view.byteLength < 2) {
        if ((await io.fill()) === null) return null;
        continue;
      }
      if (view[1] === 10) {
        io.consume(2);
        blank++;
        continue;
      }
    }
    const at = indexOfHeadEnd(view, from);
    if (at >= 0) {
      const head = parseRequestHead(view.subarray(0, at));
      io.consume(at + 4);
      return head;
    }
    // Lines end in CRLF only: a head of bare LFs would otherwise wait for its end until the header
    // timeout, and be closed without an answer.
    if (indexOfBareLf(view, from) >= 0) throw new BadRequest(400, "a line of the head ends in LF");
    if (view.byteLength >= maxHeadBytes) throw new BadRequest(431, "request headers too large");
    from = Math.max(0, view.byteLength - 3);
    if ((await io.fill()) === null) return null;
  }
}

async function serveRequest(
  io: ConnBuffer,
  head: RequestHead,
  peer: Deno.NetAddr,
  track: ConnTrack,
  opts: ConnOptions,
  timer: { arm(ms: number, reason: CutReason): void; disarm(): void },
): Promise<"open" | "close" | "linger"> {
  const framing = bodyFraming(head);
  const url = requestUrl(head, opts);
  // Aborted when the client leaves, or by the listener's cut at shutdown. Only the client's leaving
  // stops the answer's writer: a cut request still answers, however briefly.
  const gone = new AbortController();
  let left = false;
  let stopAnswer: (() => void) | undefined;
  const onGone = () => {
    if (left) return;
    left = true;
    gone.abort(new DOMException("the client closed the connection", "AbortError"));
    stopAnswer?.();
  };
  // The client is watched for leaving once its whole request is in; what it sends after that is
  // the next request, kept for later.
  const watch = () => {
    if (io.buffered > 0) return;
    io.watch().then((n) => n === null && onGone(), onGone);
  };
  const hasBody = head.method !== "GET" && head.method !== "HEAD";
  const body = requestBody(io, hasBody ? framing : { kind: "none" }, {
    expectContinue: !head.http10 && headerOf(head, "expect")?.toLowerCase() === "100-continue",
    rate: {
      graceMs: opts.timeouts.bodyGraceMs,
      minBytesPerSecond: opts.timeouts.bodyMinBytesPerSecond,
      arm: (ms) => timer.arm(ms, "body_too_slow"),
      disarm: timer.disarm,
    },
    onComplete: watch,
  });
  if (body.complete) watch();
  const request = newRequest(url, head, body.stream);
  const client = opts.clientOf(peer.hostname, headerOf(head, "x-forwarded-for"));
  const remoteAddr: Deno.NetAddr = client === peer.hostname
    ? peer
    : { transport: "tcp", hostname: client, port: peer.port };
  let res: Response;
  track.answering(gone);
  try {
    res = await opts.handler(request, { remoteAddr, signal: gone.signal });
  } catch (e) {
    opts.onHandlerError(e);
    res = new Response("internal error", { status: 500 });
  }
  // A body the app left unread (or a GET's that could not be given to it) is not skipped over:
  // the connection ends with this answer instead.
  const reusable = (hasBody || framing.kind === "none") && body.complete;
  const written = await writeResponse(io, res, {
    headOnly: head.method === "HEAD",
    http10: head.http10,
    last: track.draining || !wantsKeepAlive(head) || !reusable,
    onGone,
    whenGone: (stop) => {
      stopAnswer = stop;
      if (left) stop();
    },
  });
  track.answering(undefined);
  if (written === "open") return "open";
  // Closing on bytes the client is still sending (a body the app left unread, a pipelined request)
  // would reset the connection under the answer.
  return !left && (!body.complete || io.buffered > 0) ? "linger" : "close";
}

/**
 * The URL as text and the head's own list: the Request parses each once. Headers are appended to
 * the Request's own rather than given in its init, which converts a list through WebIDL's
 * sequence machinery first (about 2 µs a request).
 */
function newRequest(url: string, head: RequestHead, body: RequestBody["stream"]): Request {
  try {
    const request = new Request(url, {
      method: head.method,
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    const headers = request.headers;
    for (const [name, value] of head.headers) headers.append(name, value);
    return request;
  } catch {
    throw new BadRequest(400, "malformed request target, Host or header");
  }
}

/** A header's value; several of one name are joined as one list (RFC 9110 §5.3). */
function headerOf(head: RequestHead, name: string): string | null {
  let value: string | null = null;
  for (const [n, v] of head.headers) if (n === name) value = value === null ? v : `${value}, ${v}`;
  return value;
}

/** Host as an authority only: one with a path, query, fragment or userinfo would move the route. */
const hostRe = /^[^\s/?#@\\]+$/;

function requestUrl(head: RequestHead, opts: ConnOptions): string {
  let hosts = 0;
  for (const [name] of head.headers) if (name === "host") hosts++;
  // RFC 9112 §3.2: an HTTP/1.1 request names its host once; which of two a proxy in front routed
  // by is anyone's guess.
  if (hosts > 1 || (hosts === 0 && !head.http10)) {
    throw new BadRequest(400, hosts ? "more than one Host header" : "no Host header");
  }
  if (head.target.startsWith("/")) {
    const host = headerOf(head, "host") || opts.authority;
    if (hostRe.test(host)) return `${opts.scheme}://${host}${head.target}`;
  } else if (/^https?:\/\//i.test(head.target)) {
    return head.target;
  }
  throw new BadRequest(400, "malformed request target or Host");
}
