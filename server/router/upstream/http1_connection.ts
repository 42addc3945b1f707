/**
 * One kept-alive TCP connection to an engine and the bytes read from it but not yet used, with
 * the reading of an answer's status line and headers.
 */

const bufferSize = 16 * 1024;

export interface Head {
  status: number;
  /** HTTP/1.0: the connection closes after the answer unless the engine says keep-alive. */
  http10: boolean;
  headers: Map<string, string>;
}

/** One TCP connection and the bytes read from it but not yet used. */
export class Connection {
  idleSince = 0;
  /** In the pool, waiting for a request. */
  idle = false;
  #buf = new Uint8Array(bufferSize);
  #start = 0;
  #end = 0;
  #closed = false;
  /** A read started while idle, not yet taken by a request. */
  #pending: Promise<number | null> | undefined;
  readonly #tcp: Deno.TcpConn;

  constructor(tcp: Deno.TcpConn) {
    this.#tcp = tcp;
  }

  async writeAll(head: Uint8Array, body: Uint8Array | undefined): Promise<void> {
    let bytes = head;
    if (body?.byteLength) {
      bytes = new Uint8Array(head.byteLength + body.byteLength);
      bytes.set(head);
      bytes.set(body, head.byteLength);
    }
    for (let off = 0; off < bytes.byteLength;) off += await this.#tcp.write(bytes.subarray(off));
  }

  /** The status line and headers; "closed" when the connection ended before any byte of them. */
  async readHead(maxBytes: number): Promise<Head | "closed"> {
    for (;;) {
      const at = indexOfHeadEnd(this.#buf, this.#start, this.#end);
      if (at >= 0) {
        const text = new TextDecoder().decode(this.#buf.subarray(this.#start, at));
        this.#start = at + 4;
        const head = parseHead(text);
        // 1xx answers (100 Continue) come before the real one.
        if (head.status >= 100 && head.status < 200) continue;
        return head;
      }
      if (this.#end - this.#start >= maxBytes) {
        throw new Error("the engine's answer headers are too long");
      }
      const n = await this.#fill();
      if (n === null) {
        if (this.#end === this.#start) return "closed";
        throw new Deno.errors.UnexpectedEof("the engine closed the connection mid-headers");
      }
    }
  }

  /** Up to `max` buffered bytes (reading more first when none are left); null at end of stream. */
  async take(max: number): Promise<Uint8Array | null> {
    if (this.#start === this.#end && (await this.#fill()) === null) return null;
    const n = Math.min(max, this.#end - this.#start);
    const out = this.#buf.subarray(this.#start, this.#start + n);
    this.#start += n;
    return out;
  }

  /** Whatever is buffered, without reading. */
  buffered(): Uint8Array {
    const out = this.#buf.subarray(this.#start, this.#end);
    this.#start = this.#end;
    return out;
  }

  /** Starts the idle read; `onGone` when it ends the connection's use (a close, stray bytes). */
  watchIdle(onGone: () => void): void {
    const read = this.#fill();
    this.#pending = read;
    read.then(
      () => {
        // Anything but a request's own answer, while idle, ends the connection: a close (null), or
        // bytes nobody asked for.
        if (this.idle) onGone();
      },
      () => {
        if (this.idle) onGone();
      },
    );
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#tcp.close();
    } catch {
      // Already closed by the runtime.
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #fill(): Promise<number | null> {
    if (this.#pending) {
      // The idle read, started before this request was sent, is this request's first read.
      const pending = this.#pending;
      this.#pending = undefined;
      return await pending;
    }
    if (this.#start === this.#end) {
      this.#start = this.#end = 0;
    } else if (this.#end === this.#buf.byteLength) {
      // Unused bytes move to the front; a head longer than the buffer grows it.
      if (this.#start === 0) {
        const grown = new Uint8Array(this.#buf.byteLength * 2);
        grown.set(this.#buf);
        this.#buf = grown;
      } else {
        this.#buf.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      }
    }
    const n = await this.#tcp.read(this.#buf.subarray(this.#end));
    if (n === null) return null;
    this.#end += n;
    return n;
  }
}

function indexOfHeadEnd(buf: Uint8Array, from: number, to: number): number {
  for (let i = buf.indexOf(13, from); i >= 0 && i + 3 < to; i = buf.indexOf(13, i + 1)) {
    if (buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

function parseHead(text: string): Head {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? "");
  if (!m) throw new Error("the engine's answer is not HTTP/1.1");
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error("the engine's answer has a malformed header");
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status: Number(m[2]), http10: m[1] === "0", headers };
}
