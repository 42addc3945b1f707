/**
 * Writes a `Response` onto an HTTP/1.1 connection. A body whose end is already known when its
 * first bytes are (any answer made whole: JSON, a page) goes out with a Content-Length in one
 * write with the head; any other (a stream) goes out chunked, one write per piece the app gives, so
 * a token reaches the client as soon as the engine sent it.
 */
import type { ConnBuffer } from "./conn_buffer.ts";

export interface WriteOptions {
  /** A HEAD request: headers only. */
  headOnly: boolean;
  /** The client speaks HTTP/1.0: no chunked coding; the end of a stream is the connection's. */
  http10: boolean;
  /** This is the connection's last answer (`Connection: close`). */
  last: boolean;
  /** A write failed: the client is gone. */
  onGone(): void;
  /** Calls `stop` when the client is gone (at once if it is): the app's stream is cancelled (it may be waiting on an engine). */
  whenGone(stop: () => void): void;
}

/** What became of the connection: it may carry another request, or it must close. */
export type Written = "open" | "close";

const encoder = new TextEncoder();
const hopByHop = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade"]);
const lastChunk = encoder.encode("0\r\n\r\n");

export async function writeResponse(
  io: ConnBuffer,
  res: Response,
  opts: WriteOptions,
): Promise<Written> {
  const status = res.status;
  const bodiless = opts.headOnly || status < 200 || status === 204 || status === 304;
  let head = `HTTP/1.1 ${status} ${res.statusText || reasonPhrase(status)}\r\n`;
  let declared: number | undefined;
  let dated = false;
  // forEach, not for-of: the iterator makes an object per header (about 5 µs for an answer's dozen).
  res.headers.forEach((value, name) => {
    if (hopByHop.has(name)) return;
    if (name === "content-length") declared = Number(value);
    else if (name === "date") dated = true;
    head += `${name}: ${value}\r\n`;
  });
  // The app's own Date (a relayed answer's) stands; two would leave the client to pick one.
  if (!dated) head += `date: ${httpDate()}\r\n`;
  let last = opts.last;
  // Before `res.body`, which turns a body made in memory into a stream.
  if (!bodiless && declared !== undefined && declared <= wholeBytesMax) {
    return await declaredWhole(io, res, finish(head, last, opts), declared, opts)
      ? keep(last)
      : "close";
  }
  const body = res.body;
  if (bodiless || body === null) {
    if (body) await body.cancel().catch(() => {});
    if (!bodiless && declared === undefined) head += "content-length: 0\r\n";
    return await send(io, finish(head, last, opts), undefined, opts) ? keep(last) : "close";
  }
  const reader = body.getReader();
  let ended = false;
  opts.whenGone(() =>
    reader.cancel(new DOMException("the client is gone", "AbortError")).catch(() => {})
  );
  try {
    const first = await reader.read();
    if (declared !== undefined) {
      return await rawBody(io, reader, finish(head, last, opts), first, declared, opts)
        ? keep(last)
        : "close";
    }
    if (first.done) {
      ended = true;
      return await send(io, finish(head + "content-length: 0\r\n", last, opts), undefined, opts)
        ? keep(last)
        : "close";
    }
    // Whether the body has already ended: a whole answer's next read is settled by now, a
    // stream's is not (and is not waited for).
    const next = reader.read();
    // Left unread when the client goes first: its rejection at the cancel below is expected.
    next.catch(() => {});
    const settled = await Promise.race([next, Promise.resolve(undefined)]);
    if (settled?.done) {
      ended = true;
      head += `content-length: ${first.value.byteLength}\r\n`;
      return await send(io, finish(head, last, opts), first.value, opts) ? keep(last) : "close";
    }
    if (opts.http10) {
      // No chunked coding in HTTP/1.0: the body ends where the connection does.
      last = true;
      if (!await send(io, finish(head, true, opts), first.value, opts)) return "close";
      for (let r = await next; !r.done; r = await reader.read()) {
        if (!await send(io, undefined, r.value, opts)) return "close";
      }
      ended = true;
      return "close";
    }
    head += "transfer-encoding: chunked\r\n";
    // An empty piece framed as a chunk would be the last chunk: the answer would end there, and
    // what follows be read by the client (or a proxy's next client) as the next answer.
    const opening = first.value.byteLength ? chunk(first.value) : undefined;
    if (!await send(io, finish(head, last, opts), opening, opts)) return "close";
    for (let r = await next; !r.done; r = await reader.read()) {
      if (r.value.byteLength && !await send(io, undefined, chunk(r.value, io), opts)) {
        return "close";
      }
    }
    ended = true;
    return await send(io, undefined, lastChunk, opts) ? keep(last) : "close";
  } catch {
    // The app's body failed mid-way: the client must not take what it got for the whole answer.
    return "close";
  } finally {
    // A client gone (or a body failed) mid-way: the app's stream is told, as with any listener.
    if (!ended) {
      await reader.cancel(new DOMException("the client is gone", "AbortError")).catch(() => {});
    }
    // No releaseLock: nobody reads the body after this, and releasing costs an Error's stack.
  }
}

/**
 * A body of declared length small enough to hold is read whole: an answer made in memory (JSON, a
 * page) then goes out without a stream's machinery (a reader and its reads cost about 4 µs).
 */
const wholeBytesMax = 1024 * 1024;

async function declaredWhole(
  io: ConnBuffer,
  res: Response,
  head: string,
  declared: number,
  opts: WriteOptions,
): Promise<boolean> {
  let bytes: Uint8Array;
  try {
    bytes = await res.bytes();
  } catch {
    // The app's body failed before a byte went out: the client gets no half answer.
    return false;
  }
  // A body other than its Content-Length would leave the client reading the next answer as this one.
  if (bytes.byteLength !== declared) return false;
  return await send(io, head, bytes, opts);
}

function keep(last: boolean): Written {
  return last ? "close" : "open";
}

function finish(head: string, last: boolean, opts: WriteOptions): string {
  if (last) return head + "connection: close\r\n\r\n";
  return head + (opts.http10 ? "connection: keep-alive\r\n\r\n" : "\r\n");
}

async function rawBody(
  io: ConnBuffer,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  head: string,
  first: ReadableStreamReadResult<Uint8Array>,
  declared: number,
  opts: WriteOptions,
): Promise<boolean> {
  let sent = 0;
  let pendingHead: string | undefined = head;
  for (let r = first; !r.done; r = await reader.read()) {
    sent += r.value.byteLength;
    if (!await send(io, pendingHead, r.value, opts)) return false;
    pendingHead = undefined;
  }
  if (pendingHead !== undefined && !await send(io, pendingHead, undefined, opts)) return false;
  // A body shorter than its Content-Length leaves the client waiting: only a close ends that.
  return sent === declared;
}

/**
 * A chunk of the chunked coding: size in hex, CRLF, the data, CRLF, in one buffer: the
 * connection's own when it fits (a stream's every piece would otherwise be a new array).
 */
function chunk(data: Uint8Array, io?: ConnBuffer): Uint8Array {
  const size = data.byteLength;
  let digits = 1;
  while (size >= 16 ** digits) digits++;
  const length = digits + 2 + size + 2;
  const into = io?.scratch(length);
  const out = into ? into.subarray(0, length) : new Uint8Array(length);
  for (let i = digits - 1, n = size; i >= 0; i--, n >>>= 4) out[i] = hex[n & 15]!;
  out[digits] = 13;
  out[digits + 1] = 10;
  out.set(data, digits + 2);
  out[digits + 2 + size] = 13;
  out[digits + 3 + size] = 10;
  return out;
}

const hex = encoder.encode("0123456789abcdef");

/** One write of the head (if any) and the bytes; false when the client is gone. */
async function send(
  io: ConnBuffer,
  head: string | undefined,
  bytes: Uint8Array | undefined,
  opts: WriteOptions,
): Promise<boolean> {
  try {
    if (head !== undefined) await io.writeHeadAnd(head, bytes);
    else if (bytes?.byteLength) await io.write(bytes);
    return true;
  } catch {
    opts.onGone();
    return false;
  }
}

let dateSecond = 0;
let dateText = "";

function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

const reasons: Record<number, string> = {
  100: "Continue",
  101: "Switching Protocols",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  499: "Client Closed Request",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
};

export function reasonPhrase(status: number): string {
  return reasons[status] ?? "Unknown";
}
