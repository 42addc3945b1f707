/**
 * A client request's line and headers (RFC 9112), read strictly: what a lenient reader would take
 * one way and a proxy in front another (folded lines, spaces before the colon, both Content-Length
 * and Transfer-Encoding) is refused rather than guessed at.
 */

export interface RequestHead {
  method: string;
  /** As sent: origin form (`/v1/models?x=1`) or absolute form. */
  target: string;
  http10: boolean;
  /** Names in lower case, in the order sent. */
  headers: [string, string][];
}

/** A request that cannot be read; answered with `status` and the connection closed. */
export class BadRequest extends Error {
  constructor(readonly status: 400 | 414 | 431 | 501 | 505, message: string) {
    super(message);
  }
}

/**
 * Bounds inside the head's 64 KiB: thousands of header lines cost the app tens of ms to take in
 * (Envoy allows 100, Node 2,000), and a line of tens of KiB is no API call (nginx allows 8 KiB).
 */
const maxHeaderFields = 256;
const maxRequestLine = 16 * 1024;

const methodRe = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const nameRe = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Where the blank line ending a head starts (the CR of CRLFCRLF), or -1. */
export function indexOfHeadEnd(buf: Uint8Array, from = 0): number {
  for (
    let i = buf.indexOf(13, from);
    i >= 0 && i + 3 < buf.byteLength;
    i = buf.indexOf(13, i + 1)
  ) {
    if (buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

/** Where a LF not preceded by CR is, looking from `from` on, or -1. */
export function indexOfBareLf(buf: Uint8Array, from = 0): number {
  for (let i = buf.indexOf(10, from); i >= 0; i = buf.indexOf(10, i + 1)) {
    if (i === 0 || buf[i - 1] !== 13) return i;
  }
  return -1;
}

const ascii = new TextDecoder();

/** Bytes as Latin-1 text: header values are bytes, and a byte above 127 must stay one char. */
function latin1(bytes: Uint8Array): string {
  let high = false;
  for (let i = 0; i < bytes.byteLength; i++) {
    if (bytes[i]! > 127) {
      high = true;
      break;
    }
  }
  // ASCII (nearly every head) reads the same as UTF-8, which the runtime decodes natively.
  if (!high) return ascii.decode(bytes);
  let out = "";
  for (let i = 0; i < bytes.byteLength; i += 8192) {
    out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return out;
}

export function parseRequestHead(bytes: Uint8Array): RequestHead {
  const lines = latin1(bytes).split("\r\n");
  // Blank lines before the request line are the reader's to skip (serve_connection's readHead).
  const line = lines[0] ?? "";
  if (line.length > maxRequestLine) throw new BadRequest(414, "request line too long");
  if (lines.length - 1 > maxHeaderFields) throw new BadRequest(431, "too many header fields");
  const first = line.indexOf(" ");
  const last = line.lastIndexOf(" ");
  if (first <= 0 || last === first) throw new BadRequest(400, "malformed request line");
  const method = line.slice(0, first);
  const target = line.slice(first + 1, last);
  const version = line.slice(last + 1);
  if (!methodRe.test(method) || target === "" || hasControl(target, false)) {
    throw new BadRequest(400, "malformed request line");
  }
  if (version !== "HTTP/1.1" && version !== "HTTP/1.0") {
    throw new BadRequest(505, "only HTTP/1.1 and HTTP/1.0 are served");
  }
  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const h = lines[i]!;
    const colon = h.indexOf(":");
    const name = colon > 0 ? h.slice(0, colon) : "";
    if (!nameRe.test(name)) throw new BadRequest(400, "malformed header line");
    const value = trimOws(h, colon + 1);
    if (hasControl(value, true)) throw new BadRequest(400, "malformed header value");
    headers.push([name.toLowerCase(), value]);
  }
  return { method, target, http10: version === "HTTP/1.0", headers };
}

/**
 * `s` from `from` without the optional whitespace around a field value (RFC 9110 §5.5), by index:
 * the pattern `/^[ \t]+|[ \t]+$/g` retries its second half at every space of a run inside a value,
 * quadratic in the run (60,000 spaces cost 3.9 s of event loop).
 */
function trimOws(s: string, from: number): string {
  let start = from;
  let end = s.length;
  while (start < end && isOws(s.charCodeAt(start))) start++;
  while (end > start && isOws(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** A control character (or, in a target, a space) that has no place there. */
function hasControl(s: string, tabAllowed: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x7f || (c < 0x20 && !(tabAllowed && c === 0x09)) || (!tabAllowed && c === 0x20)) {
      return true;
    }
  }
  return false;
}

/** How the body is framed: its length, chunked, or none. */
export type BodyFraming = { kind: "none" } | { kind: "length"; length: number } | {
  kind: "chunked";
};

export function bodyFraming(head: RequestHead): BodyFraming {
  let length: string | undefined;
  let coding: string | undefined;
  for (const [name, value] of head.headers) {
    if (name === "content-length") {
      if (length !== undefined && length !== value) {
        throw new BadRequest(400, "conflicting Content-Length headers");
      }
      length = value;
    } else if (name === "transfer-encoding") {
      coding = coding === undefined ? value : `${coding}, ${value}`;
    }
  }
  if (coding !== undefined) {
    // Both framings in one request is how requests are smuggled past a proxy: refused.
    if (length !== undefined) throw new BadRequest(400, "Content-Length with Transfer-Encoding");
    if (head.http10) throw new BadRequest(400, "Transfer-Encoding in an HTTP/1.0 request");
    if (coding.trim().toLowerCase() !== "chunked") {
      throw new BadRequest(501, "only the chunked transfer coding is accepted");
    }
    return { kind: "chunked" };
  }
  if (length === undefined) return { kind: "none" };
  if (!/^\d{1,15}$/.test(length)) throw new BadRequest(400, "malformed Content-Length");
  const n = Number(length);
  return n === 0 ? { kind: "none" } : { kind: "length", length: n };
}

/** Whether the connection stays open after this request's answer (RFC 9112 §9.3). */
export function wantsKeepAlive(head: RequestHead): boolean {
  let tokens = "";
  for (const [name, value] of head.headers) if (name === "connection") tokens += `,${value}`;
  const list = tokens.toLowerCase().split(",").map((s) => s.trim());
  if (list.includes("close")) return false;
  return head.http10 ? list.includes("keep-alive") : true;
}
