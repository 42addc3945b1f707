/**
 * A small HTTP/1.1 client over plain TCP with kept-alive connections, for the router's requests
 * to engines on `http:` addresses. `fetch` costs the gateway more than the rest of its request
 * path together: a Request, a header list and a web stream per request, and per streamed token a
 * read through that stream. Here a request is one write, and a token one socket read into a buffer
 * the connection keeps.
 *
 * Only what engines answer is understood: a status line, headers, and a body delimited by
 * `content-length`, `chunked` or the connection's close. Anything else fails the request, and the
 * connection is never reused after a request that did not end cleanly.
 */
import { type ChunkedDecoder, chunkedDecoder } from "./chunked.ts";
import { Connection, type Head } from "./http1_connection.ts";
import { readText } from "./read_text.ts";

export interface Http1Request {
  method: string;
  /** `http://host:port/path?query`. */
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  signal?: AbortSignal;
}

export interface Http1Response {
  readonly status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  readonly headers: ReadonlyMap<string, string>;
  /** One header's value by any case of its name. */
  header(name: string): string | undefined;
  /**
   * The next piece of the body, or null at its end. The bytes belong to the connection and are
   * overwritten by the next read: use them before reading again.
   */
  read(): Promise<Uint8Array | null>;
  /** The rest of the body as text. */
  text(): Promise<string>;
  /** Gives up on the rest of the body: the connection is closed, not reused. */
  cancel(): void;
}

export interface Http1PoolOptions {
  /** Idle connections kept per host; more are closed when their request ends. */
  maxIdlePerHost?: number;
  /**
   * A connection idle this long is not reused: an engine may have closed it, and a request sent on
   * a closed connection is only found out by its missing answer. Shorter than servers' own
   * keep-alive timeouts (llama-server: 5 s).
   */
  idleMs?: number;
  /** Longest status line and headers accepted. */
  maxHeadBytes?: number;
  /**
   * How long a new connection may take. An engine on a node that died without a word (power, a
   * cable) drops the attempt silently; past this the request fails as unreachable and the router
   * tries another replica, rather than waiting for the system's own timeout of minutes.
   */
  connectTimeoutMs?: number;
  /** Opens TCP connections; `Deno.connect` unless a test gives another. */
  connect?: (opts: Deno.ConnectOptions) => Promise<Deno.TcpConn>;
}

const encoder = new TextEncoder();

export class Http1Pool {
  readonly #idle = new Map<string, Connection[]>();
  readonly #maxIdle: number;
  readonly #idleMs: number;
  readonly #connectTimeoutMs: number;
  readonly #dial: (opts: Deno.ConnectOptions) => Promise<Deno.TcpConn>;
  readonly #maxHead: number;
  #closed = false;

  constructor(opts: Http1PoolOptions = {}) {
    this.#maxIdle = opts.maxIdlePerHost ?? 256;
    this.#idleMs = opts.idleMs ?? 3_000;
    this.#maxHead = opts.maxHeadBytes ?? 64 * 1024;
    this.#connectTimeoutMs = opts.connectTimeoutMs ?? 5_000;
    this.#dial = opts.connect ?? Deno.connect;
  }

  /** Connections waiting for a request, over all hosts. */
  get idleCount(): number {
    let n = 0;
    for (const list of this.#idle.values()) n += list.length;
    return n;
  }

  async request(req: Http1Request): Promise<Http1Response> {
    const url = new URL(req.url);
    if (url.protocol !== "http:") throw new TypeError(`not an http: URL: ${url.protocol}`);
    const hostKey = url.host;
    const head = requestHead(req, url);
    const signal = req.signal;
    signal?.throwIfAborted();
    // A kept-alive connection may have been closed by the engine since (idle connections are
    // watched, but a close can cross the request on the wire): if it answers nothing at all, the
    // request goes once more, on a fresh connection (nothing came back, so nothing was answered).
    for (let attempt = 0;; attempt++) {
      const reused = attempt === 0 ? this.#takeIdle(hostKey) : undefined;
      const conn = reused ?? await this.#connect(url, signal);
      const onAbort = () => conn.close();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        await conn.writeAll(head, req.body);
        const res = await conn.readHead(this.#maxHead);
        if (res === "closed") {
          conn.close();
          if (reused && attempt === 0) continue;
          throw new Deno.errors.ConnectionReset(
            "the engine closed the connection without answering",
          );
        }
        return new Body(
          conn,
          res,
          req.method === "HEAD",
          signal,
          onAbort,
          (c) => this.#release(c, hostKey),
        );
      } catch (e) {
        signal?.removeEventListener("abort", onAbort);
        conn.close();
        if (signal?.aborted) throw signal.reason;
        if (reused && attempt === 0 && isResetLike(e)) continue;
        throw e;
      }
    }
  }

  close(): void {
    this.#closed = true;
    for (const list of this.#idle.values()) for (const c of list) c.close();
    this.#idle.clear();
  }

  #takeIdle(hostKey: string): Connection | undefined {
    const list = this.#idle.get(hostKey);
    const now = performance.now();
    while (list?.length) {
      const c = list.pop()!;
      if (!c.closed && now - c.idleSince < this.#idleMs) {
        c.idle = false;
        return c;
      }
      c.close();
    }
    return undefined;
  }

  async #connect(url: URL, signal: AbortSignal | undefined): Promise<Connection> {
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    // The connect attempt has a signal of its own: the request's may fire long after this
    // connection has gone back to the pool and serves another request.
    const attempt = new AbortController();
    const onAbort = () => attempt.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () =>
        attempt.abort(
          new Deno.errors.TimedOut(`no connection to ${url.host} in ${this.#connectTimeoutMs} ms`),
        ),
      this.#connectTimeoutMs,
    );
    let tcp: Deno.TcpConn;
    try {
      tcp = await this.#dial({ hostname, port: Number(url.port || 80), signal: attempt.signal });
    } catch (e) {
      throw attempt.signal.aborted ? attempt.signal.reason : e;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    if (signal?.aborted) {
      tcp.close();
      throw signal.reason;
    }
    tcp.setNoDelay(true);
    return new Connection(tcp);
  }

  #release(c: Connection, hostKey: string): void {
    if (this.#closed) return c.close();
    let list = this.#idle.get(hostKey);
    if (!list) this.#idle.set(hostKey, list = []);
    if (list.length >= this.#maxIdle) return c.close();
    c.idleSince = performance.now();
    c.idle = true;
    list.push(c);
    // An idle connection is read from: engines close kept-alive connections when they like (on a
    // timeout, past a count, when their threads are taken), and a close seen here takes it out of
    // the pool before a request is sent on it. The read stays the next request's first read.
    c.watchIdle(() => {
      const at = list!.indexOf(c);
      if (at >= 0) list!.splice(at, 1);
      c.close();
    });
  }
}

function requestHead(req: Http1Request, url: URL): Uint8Array {
  let head = `${req.method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(req.headers)) {
    // A line break in a value would start a header (or a request) of the value's choosing.
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) {
      throw new TypeError(`header ${JSON.stringify(name)} holds a line break`);
    }
    head += `${name}: ${value}\r\n`;
  }
  head += `content-length: ${req.body?.byteLength ?? 0}\r\n\r\n`;
  return encoder.encode(head);
}

function isResetLike(e: unknown): boolean {
  return e instanceof Deno.errors.ConnectionReset || e instanceof Deno.errors.BrokenPipe ||
    e instanceof Deno.errors.UnexpectedEof;
}

type Framing =
  | { kind: "length"; left: number }
  | { kind: "chunked"; decoder: ChunkedDecoder }
  | { kind: "close" }
  | { kind: "none" };

class Body implements Http1Response {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly #conn: Connection;
  readonly #framing: Framing;
  readonly #keepAlive: boolean;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort: () => void;
  readonly #release: (c: Connection) => void;
  #done = false;
  /** Every byte of the body has been handed out; the next read ends it. */
  #complete = false;

  constructor(
    conn: Connection,
    head: Head,
    isHead: boolean,
    signal: AbortSignal | undefined,
    onAbort: () => void,
    release: (c: Connection) => void,
  ) {
    this.#conn = conn;
    this.status = head.status;
    this.headers = head.headers;
    this.#signal = signal;
    this.#onAbort = onAbort;
    this.#release = release;
    const te = head.headers.get("transfer-encoding")?.toLowerCase();
    const cl = head.headers.get("content-length");
    if (isHead || head.status === 204 || head.status === 304) {
      this.#framing = { kind: "none" };
    } else if (te) {
      if (te !== "chunked") throw new Error(`the engine sent transfer-encoding ${te}`);
      this.#framing = { kind: "chunked", decoder: chunkedDecoder() };
    } else if (cl !== undefined) {
      const left = Number(cl);
      if (!/^\d+$/.test(cl) || !Number.isSafeInteger(left)) {
        throw new Error("the engine sent a malformed content-length");
      }
      this.#framing = { kind: "length", left };
    } else {
      this.#framing = { kind: "close" };
    }
    const connection = head.headers.get("connection")?.toLowerCase();
    this.#keepAlive = this.#framing.kind !== "close" &&
      (head.http10 ? connection === "keep-alive" : connection !== "close");
    if (
      this.#framing.kind === "none" || (this.#framing.kind === "length" && this.#framing.left === 0)
    ) {
      this.#complete = true;
    }
  }

  async read(): Promise<Uint8Array | null> {
    if (this.#done) return null;
    // The connection goes back to the pool on the read after the last bytes, not with them: they
    // live in its buffer until the caller has used them.
    if (this.#complete) {
      this.#end(true);
      return null;
    }
    try {
      const f = this.#framing;
      if (f.kind === "length") {
        const piece = await this.#conn.take(f.left);
        if (piece === null) {
          throw new Deno.errors.UnexpectedEof("the engine's answer was cut short");
        }
        f.left -= piece.byteLength;
        if (f.left === 0) this.#complete = true;
        return piece;
      }
      if (f.kind === "chunked") {
        for (;;) {
          let raw = this.#conn.buffered();
          if (raw.byteLength === 0) {
            const more = await this.#conn.take(Infinity);
            if (more === null) {
              throw new Deno.errors.UnexpectedEof("the engine's answer was cut short");
            }
            raw = more;
          }
          const { data, ended, extra } = f.decoder.decode(raw);
          if (extra) throw new Error("the engine sent bytes after its answer");
          if (ended) this.#complete = true;
          if (data.byteLength) return data;
          if (ended) return this.read();
        }
      }
      const piece = await this.#conn.take(Infinity);
      if (piece === null) this.#end(false);
      return piece;
    } catch (e) {
      this.#end(false);
      if (this.#signal?.aborted) throw this.#signal.reason;
      throw e;
    }
  }

  header(name: string): string | undefined {
    return this.headers.get(name.toLowerCase());
  }

  text(): Promise<string> {
    return readText(() => this.read());
  }

  cancel(): void {
    this.#end(false);
  }

  #end(clean: boolean): void {
    if (this.#done) return;
    this.#done = true;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    if (clean && this.#keepAlive && !this.#conn.closed) this.#release(this.#conn);
    else this.#conn.close();
  }
}
