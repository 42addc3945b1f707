/**
 * An HTTP/1.1 client at the byte level, for tests of the listener itself: a connection that sends
 * nothing, a header a byte at a time, requests kept alive or pipelined, a connection from a chosen
 * loopback source address (127.0.0.2, …; `Deno.connect` cannot bind one, node:net can).
 */
import net from "node:net";

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  /** The status line and header lines as sent. */
  headLines: string[];
  body: string;
  /** The pieces the body came in, as read (chunked framing undone). */
  pieces: string[];
}

export class RawClient {
  #buf = new Uint8Array(0);
  #chunks: Uint8Array[] = [];
  #waiting: (() => void) | undefined;
  #ended = false;
  #error: Error | undefined;
  readonly #write: (b: Uint8Array) => Promise<void>;
  readonly #close: () => void;

  private constructor(write: (b: Uint8Array) => Promise<void>, close: () => void) {
    this.#write = write;
    this.#close = close;
  }

  /** A plain TCP connection with Deno (source address chosen by the kernel). */
  static async connect(port: number, hostname = "127.0.0.1"): Promise<RawClient> {
    const conn = await Deno.connect({ hostname, port });
    const c = new RawClient(async (b) => {
      for (let off = 0; off < b.byteLength;) off += await conn.write(b.subarray(off));
    }, () => {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    });
    (async () => {
      const buf = new Uint8Array(64 * 1024);
      try {
        for (;;) {
          const n = await conn.read(buf);
          if (n === null) break;
          c.#push(buf.slice(0, n));
        }
      } catch (e) {
        c.#error = e as Error;
      }
      c.#end();
    })();
    return c;
  }

  /** A TCP connection whose source address is `localAddress` (any 127.x address on Linux). */
  static connectFrom(port: number, localAddress: string, host = "127.0.0.1"): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ host, port, localAddress });
      const c = new RawClient(
        (b) => new Promise((res, rej) => s.write(b, (e) => (e ? rej(e) : res()))),
        () => s.destroy(),
      );
      s.on("data", (d: Uint8Array) => c.#push(new Uint8Array(d)));
      s.on("error", (e: Error) => {
        c.#error = e;
        c.#end();
        reject(e);
      });
      s.on("close", () => c.#end());
      s.on("connect", () => resolve(c));
    });
  }

  #push(b: Uint8Array) {
    this.#chunks.push(b);
    this.#wake();
  }
  #end() {
    this.#ended = true;
    this.#wake();
  }
  #wake() {
    const w = this.#waiting;
    this.#waiting = undefined;
    w?.();
  }

  get ended(): boolean {
    return this.#ended;
  }
  get error(): Error | undefined {
    return this.#error;
  }

  send(text: string | Uint8Array): Promise<void> {
    return this.#write(typeof text === "string" ? new TextEncoder().encode(text) : text);
  }

  close(): void {
    this.#close();
  }

  /** Resolves true when the server closed the connection within `ms`, false otherwise. */
  async closedWithin(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    while (!this.#ended && performance.now() < deadline) {
      this.#chunks = [];
      await this.#next(deadline - performance.now());
    }
    return this.#ended;
  }

  /** Waits for more bytes (or the end) for at most `ms`. */
  #next(ms: number): Promise<void> {
    if (this.#chunks.length || this.#ended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting = undefined;
        resolve();
      }, Math.max(0, ms));
      this.#waiting = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Takes the buffered bytes together with what arrived. */
  #gather() {
    if (!this.#chunks.length) return;
    const all = new Uint8Array(
      this.#buf.byteLength + this.#chunks.reduce((n, c) => n + c.byteLength, 0),
    );
    all.set(this.#buf);
    let off = this.#buf.byteLength;
    for (const c of this.#chunks) {
      all.set(c, off);
      off += c.byteLength;
    }
    this.#chunks = [];
    this.#buf = all;
  }

  async #until<T>(find: () => T | undefined, ms: number): Promise<T | undefined> {
    const deadline = performance.now() + ms;
    for (;;) {
      this.#gather();
      const found = find();
      if (found !== undefined) return found;
      if (this.#ended || performance.now() >= deadline) return undefined;
      await this.#next(deadline - performance.now());
    }
  }

  /** Reads one answer; undefined when the connection ended (or `ms` passed) before a whole one. */
  async answer(ms = 10_000, opts: { headOnly?: boolean } = {}): Promise<RawAnswer | undefined> {
    const deadline = performance.now() + ms;
    const text = () => new TextDecoder().decode(this.#buf);
    const headEnd = await this.#until(() => {
      const at = text().indexOf("\r\n\r\n");
      return at >= 0 ? at : undefined;
    }, ms);
    if (headEnd === undefined) return undefined;
    const lines = text().slice(0, headEnd).split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers = new Map<string, string>();
    for (const l of lines.slice(1)) {
      const i = l.indexOf(":");
      headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
    }
    this.#buf = this.#buf.slice(new TextEncoder().encode(text().slice(0, headEnd + 4)).byteLength);
    const pieces: string[] = [];
    if (opts.headOnly || status === 204 || status === 304 || status < 200) {
      return { status, headers, headLines: lines, body: "", pieces };
    }
    const left = () => deadline - performance.now();
    if (headers.get("transfer-encoding") === "chunked") {
      for (;;) {
        const piece = await this.#until(() => takeChunk(this), left());
        if (piece === undefined) return undefined;
        if (piece === "") break;
        pieces.push(piece);
      }
    } else if (headers.has("content-length")) {
      const n = Number(headers.get("content-length"));
      const body = await this.#until(() => {
        if (this.#buf.byteLength < n) return undefined;
        const b = new TextDecoder().decode(this.#buf.subarray(0, n));
        this.#buf = this.#buf.slice(n);
        return b;
      }, left());
      if (body === undefined) return undefined;
      pieces.push(body);
    } else {
      await this.#until(() => undefined, left());
      pieces.push(new TextDecoder().decode(this.#buf));
      this.#buf = new Uint8Array(0);
    }
    return { status, headers, headLines: lines, body: pieces.join(""), pieces };
  }

  /** For takeChunk. */
  get buffer(): Uint8Array<ArrayBuffer> {
    return this.#buf;
  }
  set buffer(b: Uint8Array<ArrayBuffer>) {
    this.#buf = b;
  }
}

/** One chunk's data off the front of the buffer ("" for the last chunk); undefined when not all in. */
function takeChunk(c: RawClient): string | undefined {
  const buf = c.buffer;
  const text = new TextDecoder("latin1").decode(buf);
  const eol = text.indexOf("\r\n");
  if (eol < 0) return undefined;
  const size = parseInt(text.slice(0, eol), 16);
  if (size === 0) {
    if (!text.startsWith("\r\n", eol + 2)) return undefined;
    c.buffer = buf.slice(eol + 4);
    return "";
  }
  if (buf.byteLength < eol + 2 + size + 2) return undefined;
  const data = new TextDecoder().decode(buf.subarray(eol + 2, eol + 2 + size));
  c.buffer = buf.slice(eol + 2 + size + 2);
  return data;
}

/** A GET request's bytes. */
export function get(path: string, headers: Record<string, string> = {}): string {
  const lines = [`GET ${path} HTTP/1.1`, "host: localhost"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return lines.join("\r\n") + "\r\n\r\n";
}

/** A POST request's bytes with a JSON body. */
export function post(path: string, body: unknown, headers: Record<string, string> = {}): string {
  const text = JSON.stringify(body);
  const lines = [
    `POST ${path} HTTP/1.1`,
    "host: localhost",
    "content-type: application/json",
    `content-length: ${new TextEncoder().encode(text).byteLength}`,
  ];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return lines.join("\r\n") + "\r\n\r\n" + text;
}
