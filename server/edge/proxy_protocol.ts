/**
 * The PROXY protocol (HAProxy's spec, versions 1 and 2): the header a TCP proxy or load balancer
 * (HAProxy `send-proxy`, nginx `proxy_protocol on`, AWS NLB, …) sends before the client's bytes,
 * naming the client it connected for. Read strictly: the spec has the receiver drop a connection
 * whose header is not exactly right, rather than guess at a client.
 */
import { formatIp, parseIp } from "./trusted_proxies.ts";

/** Whether a trusted proxy's connections carry a PROXY header: never read, if sent, or always. */
export type ProxyProtocolMode = "off" | "optional" | "required";

/** What a whole header says: the client's address, or LOCAL (the proxy's own, e.g. a health check). */
export type ProxyHeader = { kind: "client"; address: string; port: number } | { kind: "local" };

export class BadProxyHeader extends Error {}

/** The first bytes of a version 2 header. */
const v2Signature = new Uint8Array([
  0x0d,
  0x0a,
  0x0d,
  0x0a,
  0x00,
  0x0d,
  0x0a,
  0x51,
  0x55,
  0x49,
  0x54,
  0x0a,
]);
const v1Signature = new TextEncoder().encode("PROXY ");
/** The longest version 1 line, CRLF included (the spec's own bound). */
const v1MaxBytes = 107;

/**
 * Whether the connection's first bytes are a PROXY header: "more" while too few have come to tell
 * (they agree with a signature so far).
 */
export function proxySignature(buf: Uint8Array): "v1" | "v2" | "none" | "more" {
  for (const [sig, name] of [[v1Signature, "v1"], [v2Signature, "v2"]] as const) {
    const n = Math.min(sig.byteLength, buf.byteLength);
    let same = true;
    for (let i = 0; i < n && same; i++) same = buf[i] === sig[i];
    if (same) return n === sig.byteLength ? name : "more";
  }
  return "none";
}

/**
 * The header at the front of `buf` and its length in bytes; null while it is not all in. Throws
 * BadProxyHeader when it cannot be one (the caller knows a signature is there).
 */
export function parseProxyHeader(
  buf: Uint8Array,
): { header: ProxyHeader; length: number } | null {
  return buf[0] === 0x50 ? parseV1(buf) : parseV2(buf);
}

const ascii = new TextDecoder();
const portRe = /^(0|[1-9]\d{0,4})$/;

function parseV1(buf: Uint8Array): { header: ProxyHeader; length: number } | null {
  const end = buf.subarray(0, v1MaxBytes).indexOf(0x0a);
  if (end < 0) {
    if (buf.byteLength >= v1MaxBytes) throw new BadProxyHeader("PROXY line too long");
    return null;
  }
  if (buf[end - 1] !== 0x0d) throw new BadProxyHeader("PROXY line does not end in CRLF");
  const words = ascii.decode(buf.subarray(0, end - 1)).split(" ");
  const length = end + 1;
  if (words[1] === "UNKNOWN") return { header: { kind: "local" }, length };
  if (words.length !== 6 || (words[1] !== "TCP4" && words[1] !== "TCP6")) {
    throw new BadProxyHeader("malformed PROXY line");
  }
  const [, family, source, destination, sourcePort, destinationPort] = words as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const ip = parseIp(source);
  const v6 = family === "TCP6";
  // TCP4 takes dotted quads only, TCP6 colon-hex only: "::ffff:1.2.3.4" is TCP6's way to say v4.
  if (!ip || source.includes(":") !== v6 || !sameFamily(destination, v6)) {
    throw new BadProxyHeader("malformed PROXY addresses");
  }
  if (!validPort(sourcePort) || !validPort(destinationPort)) {
    throw new BadProxyHeader("malformed PROXY ports");
  }
  return { header: { kind: "client", address: formatIp(ip), port: Number(sourcePort) }, length };
}

function sameFamily(address: string, v6: boolean): boolean {
  return parseIp(address) !== undefined && address.includes(":") === v6;
}

function validPort(s: string): boolean {
  return portRe.test(s) && Number(s) <= 65_535;
}

function parseV2(buf: Uint8Array): { header: ProxyHeader; length: number } | null {
  if (buf.byteLength < 16) return null;
  const version = buf[12]! >> 4;
  const command = buf[12]! & 0x0f;
  if (version !== 2 || command > 1) throw new BadProxyHeader("unknown PROXY version or command");
  const family = buf[13]! >> 4;
  const transport = buf[13]! & 0x0f;
  const length = 16 + ((buf[14]! << 8) | buf[15]!);
  if (buf.byteLength < length) return null;
  // LOCAL: the proxy speaks for itself; what follows (if anything) is to be skipped.
  if (command === 0) return { header: { kind: "local" }, length };
  const addressBytes = family === 1 ? 12 : family === 2 ? 36 : family === 3 ? 216 : 0;
  if (family > 3 || transport > 2 || length - 16 < addressBytes) {
    throw new BadProxyHeader("malformed PROXY v2 addresses");
  }
  // UNSPEC or UNIX: no IP address to name; the spec lets the receiver use the connection's own.
  if (family === 0 || family === 3) return { header: { kind: "local" }, length };
  if (transport !== 1) throw new BadProxyHeader("PROXY v2 for a protocol other than TCP");
  const at = 16;
  const size = family === 1 ? 4 : 16;
  let bits = 0n;
  for (let i = 0; i < size; i++) bits = (bits << 8n) | BigInt(buf[at + i]!);
  const portAt = at + 2 * size;
  const port = (buf[portAt]! << 8) | buf[portAt + 1]!;
  const address = formatIp(
    family === 2 && bits >> 32n === 0xffffn
      ? { v6: false, bits: bits & 0xffffffffn }
      : { v6: family === 2, bits },
  );
  return { header: { kind: "client", address, port }, length };
}
