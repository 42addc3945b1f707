/**
 * A client connection and the bytes read from it but not yet used. One read may be left pending
 * (the watch for a client leaving while its request is answered): the next read takes its result.
 * Each write is timed by `sendWatch`.
 */

/** Told when a write starts and when it ends. */
export interface SendWatch {
  arm(): void;
  disarm(): void;
}

const bufferSize = 16 * 1024;
const encoder = new TextEncoder();

export class ConnBuffer {
  #buf = new Uint8Array(bufferSize);
  #out = new Uint8Array(bufferSize);
  #start = 0;
  #end = 0;
  #pending: Promise<number | null> | undefined;
  readonly conn: Deno.Conn;
  readonly #sendWatch: SendWatch | undefined;

  constructor(conn: Deno.Conn, sendWatch?: SendWatch) {
    this.conn = conn;
    this.#sendWatch = sendWatch;
  }

  get buffered(): number {
    return this.#end - this.#start;
  }

  /** The unused bytes, still in the buffer (valid until the next read). */
  view(): Uint8Array {
    return this.#buf.subarray(this.#start, this.#end);
  }

  consume(n: number): void {
    this.#start += n;
  }

  /** Up to `max` bytes, copied (reading first when none are buffered); null at end of stream. */
  async take(max: number): Promise<Uint8Array | null> {
    if (this.#start === this.#end && (await this.fill()) === null) return null;
    const n = Math.min(max, this.#end - this.#start);
    const out = this.#buf.slice(this.#start, this.#start + n);
    this.#start += n;
    return out;
  }

  /** Starts a read that nobody waits for yet: it resolves null when the client leaves. */
  watch(): Promise<number | null> {
    this.#pending ??= this.#read();
    return this.#pending;
  }

  /** Reads more bytes onto the end; null at end of stream. */
  fill(): Promise<number | null> {
    const pending = this.#pending;
    if (pending) {
      this.#pending = undefined;
      return pending;
    }
    return this.#read();
  }

  async #read(): Promise<number | null> {
    if (this.#start === this.#end) {
      this.#start = this.#end = 0;
    } else if (this.#end === this.#buf.byteLength) {
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
    const n = await this.conn.read(this.#buf.subarray(this.#end));
    if (n === null) return null;
    this.#end += n;
    return n;
  }

  /**
   * Writes a head (text) and bytes as one write. Both go through a buffer of the connection's own
   * when they fit, rather than a new array for the head and another joining the two.
   */
  writeHeadAnd(head: string, bytes: Uint8Array | undefined): Promise<void> {
    const size = bytes?.byteLength ?? 0;
    const out = this.#out;
    const { read, written } = encoder.encodeInto(head, out);
    if (read === head.length && written + size <= out.byteLength) {
      if (bytes) out.set(bytes, written);
      return this.write(out.subarray(0, written + size));
    }
    const h = encoder.encode(head);
    if (!size) return this.write(h);
    const joined = new Uint8Array(h.byteLength + size);
    joined.set(h);
    joined.set(bytes!, h.byteLength);
    return this.write(joined);
  }

  /**
   * The connection's write buffer for `n` bytes, to fill and pass to `write` (before any other
   * write); undefined when they would not fit.
   */
  scratch(n: number): Uint8Array | undefined {
    return n <= this.#out.byteLength ? this.#out : undefined;
  }

  /** One write at a time: the answer's writer awaits each before the next (`#out` is reused). */
  async write(bytes: Uint8Array): Promise<void> {
    this.#sendWatch?.arm();
    try {
      // Almost always one write takes it all; the loop is for a full socket buffer.
      let off = await this.conn.write(bytes);
      while (off < bytes.byteLength) off += await this.conn.write(bytes.subarray(off));
    } finally {
      this.#sendWatch?.disarm();
    }
  }
}
