/**
 * Every parse function of the edge is linear in its input: a head is read before anyone is known,
 * so a function that backtracks or rescans lets one unauthenticated request hold the event loop
 * (a trim pattern took 3.9 s on 60,000 spaces inside a value). Each function gets 64 KiB of each
 * byte class at the start, middle and end of each part it reads, and must take a few ms; the bound
 * is generous against a loaded CI box, but a quadratic function takes seconds.
 */
import { assert } from "../../tests/assert.ts";
import { chunkedDecoder } from "../router/upstream/chunked.ts";
import { parseProxyHeader } from "./proxy_protocol.ts";
import {
  bodyFraming,
  indexOfBareLf,
  indexOfHeadEnd,
  parseRequestHead,
  type RequestHead,
  wantsKeepAlive,
} from "./request_head.ts";
import { trustedProxies } from "./trusted_proxies.ts";

export const boundMs = 20;
const runLength = 64 * 1024;
export const byteClasses = {
  spaces: " ",
  tabs: "\t",
  CRs: "\r",
  LFs: "\n",
  colons: ":",
  digits: "0",
};
const enc = new TextEncoder();

/** The fastest of three runs, in ms: a GC pause or a JIT tier-up is no part of the function's cost. */
export function fastest(run: () => void): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    try {
      run();
    } catch {
      // Refusing is as good an outcome as parsing; only the time is judged.
    }
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/** `[what, text]` for a run of each byte class at the start, middle and end of `parts`' slots. */
export function worstCases(
  shapes: Record<string, (run: string) => string>,
): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, byte] of Object.entries(byteClasses)) {
    const run = byte.repeat(runLength);
    for (const [where, shape] of Object.entries(shapes)) out.push([`${name} ${where}`, shape(run)]);
  }
  return out;
}

export function assertAllFast(what: string, cases: [string, string][], run: (s: string) => void) {
  const slow: string[] = [];
  for (const [name, text] of cases) {
    const ms = fastest(() => run(text));
    if (ms > boundMs) slow.push(`${name}: ${ms.toFixed(1)} ms`);
  }
  assert(slow.length === 0, `${what} is not linear:\n${slow.join("\n")}`);
}

const headShapes = {
  "at the start of the request line": (r: string) => `${r}GET / HTTP/1.1\r\nhost: a`,
  "in the middle of the request line": (r: string) => `GET /${r}x HTTP/1.1\r\nhost: a`,
  "at the end of the request line": (r: string) => `GET / HTTP/1.1${r}\r\nhost: a`,
  "at the start of a name": (r: string) => `GET / HTTP/1.1\r\n${r}x-a: v`,
  "in the middle of a name": (r: string) => `GET / HTTP/1.1\r\nx${r}a: v`,
  "at the end of a name": (r: string) => `GET / HTTP/1.1\r\nx-a${r}: v`,
  "at the start of a value": (r: string) => `GET / HTTP/1.1\r\nx-a:${r}v`,
  "in the middle of a value": (r: string) => `GET / HTTP/1.1\r\nx-a: a${r}b`,
  "at the end of a value": (r: string) => `GET / HTTP/1.1\r\nx-a: v${r}`,
};

Deno.test("linear: parseRequestHead", () => {
  assertAllFast("parseRequestHead", worstCases(headShapes), (s) => parseRequestHead(enc.encode(s)));
});

Deno.test("linear: indexOfHeadEnd and indexOfBareLf, from the start and resumed as bytes arrive", () => {
  for (const find of [indexOfHeadEnd, indexOfBareLf]) {
    assertAllFast(find.name, worstCases(headShapes), (s) => {
      const bytes = enc.encode(`${s}\r\n\r\n`);
      find(bytes);
      // As readHead resumes it, 1 KiB at a time: each call looks only at what is new.
      for (let end = 1024; end < bytes.byteLength; end += 1024) {
        find(bytes.subarray(0, end), Math.max(0, end - 1024 - 3));
      }
    });
  }
});

const headWith = (name: string, value: string): RequestHead => ({
  method: "POST",
  target: "/",
  http10: false,
  headers: [["host", "a"], [name, value]],
});

const valueShapes = {
  "at the start": (r: string) => `${r}1`,
  "in the middle": (r: string) => `1${r}1`,
  "at the end": (r: string) => `1${r}`,
};

Deno.test("linear: bodyFraming and wantsKeepAlive", () => {
  for (const name of ["content-length", "transfer-encoding"]) {
    assertAllFast(
      `bodyFraming (${name})`,
      worstCases(valueShapes),
      (s) => bodyFraming(headWith(name, s)),
    );
  }
  assertAllFast(
    "wantsKeepAlive",
    worstCases(valueShapes),
    (s) => wantsKeepAlive(headWith("connection", s.replaceAll("1", "close,keep-alive"))),
  );
});

Deno.test("linear: X-Forwarded-For behind a trusted proxy", () => {
  const proxies = trustedProxies("127.0.0.1, ::1");
  const shapes = {
    "at the start": (r: string) => `${r}10.0.0.1, 127.0.0.1`,
    "in the middle": (r: string) => `10.0.0.1,${r}, 127.0.0.1`,
    "at the end": (r: string) => `10.0.0.1, 127.0.0.1${r}`,
    "in an IPv6 address": (r: string) => `2001:db8${r}::1`,
  };
  assertAllFast("clientOf", worstCases(shapes), (s) => proxies.clientOf("127.0.0.1", s));
});

Deno.test("linear: the PROXY header", () => {
  const shapes = {
    "in a v1 line": (r: string) => `PROXY TCP4 ${r}1.2.3.4 5.6.7.8 1 2\r\n`,
    "at the end of a v1 line": (r: string) => `PROXY TCP4 1.2.3.4 5.6.7.8 1 2${r}`,
  };
  assertAllFast("parseProxyHeader", worstCases(shapes), (s) => parseProxyHeader(enc.encode(s)));
});

Deno.test("linear: the chunked decoder (request bodies), whole and in 1 KiB pieces", () => {
  const shapes = {
    "before a size": (r: string) => `${r}5\r\nhello\r\n0\r\n\r\n`,
    "after a size": (r: string) => `5${r}\r\nhello\r\n0\r\n\r\n`,
    "in an extension": (r: string) => `5;a${r}=b\r\nhello\r\n0\r\n\r\n`,
    "in a quoted extension value": (r: string) => `5;a="${r}"\r\nhello\r\n0\r\n\r\n`,
    "in the data": (r: string) => `${r.length.toString(16)}\r\n${r}\r\n0\r\n\r\n`,
    "in a trailer name": (r: string) => `5\r\nhello\r\n0\r\nx${r}: 1\r\n\r\n`,
    "in a trailer value": (r: string) => `5\r\nhello\r\n0\r\nx: 1${r}1\r\n\r\n`,
    "after the end": (r: string) => `5\r\nhello\r\n0\r\n\r\n${r}`,
  };
  assertAllFast("chunkedDecoder", worstCases(shapes), (s) => {
    const bytes = enc.encode(s);
    chunkedDecoder().decode(bytes.slice());
    const d = chunkedDecoder();
    for (let at = 0; at < bytes.byteLength; at += 1024) d.decode(bytes.slice(at, at + 1024));
  });
});
