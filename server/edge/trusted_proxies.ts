/**
 * `trusted_proxies`: the addresses (or CIDR ranges) of proxies whose `X-Forwarded-For` is believed.
 * Anyone else can write that header, so for them the peer address of the connection is the client;
 * behind a trusted proxy it is the nearest address in the header that is not itself trusted.
 */
import { ConfigError } from "../../core/settings.ts";

interface Range {
  v6: boolean;
  bits: bigint;
  prefix: number;
}

export interface TrustedProxies {
  /** True when `address` is one of the trusted proxies. */
  has(address: string): boolean;
  /** The client's address for a request that came from `peer` with this X-Forwarded-For. */
  clientOf(peer: string, forwardedFor: string | null): string;
}

/** Parses the setting's comma-separated list; an entry that is not an address or CIDR is refused. */
export function trustedProxies(list: string): TrustedProxies {
  const ranges = list.split(",").map((s) => s.trim()).filter(Boolean).map(parseRange);
  const has = (address: string) => {
    if (ranges.length === 0) return false;
    const ip = parseIp(address);
    return ip !== undefined && ranges.some((r) => inRange(ip, r));
  };
  return {
    has,
    clientOf(peer, forwardedFor) {
      if (!forwardedFor || !has(peer)) return peer;
      // Each proxy appends the address it was reached from: walking from the right, the first
      // one that is not a trusted proxy is the client (what is left of it anyone could have made up).
      const hops = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
      for (let i = hops.length - 1; i >= 0; i--) {
        const hop = hops[i]!;
        if (parseIp(hop) === undefined) return peer;
        if (!has(hop)) return canonical(hop);
      }
      return hops.length ? canonical(hops[0]!) : peer;
    },
  };
}

function parseRange(entry: string): Range {
  const slash = entry.indexOf("/");
  const ip = parseIp(slash < 0 ? entry : entry.slice(0, slash));
  const width = ip?.v6 ? 128 : 32;
  const prefix = slash < 0 ? width : Number(entry.slice(slash + 1));
  if (!ip || !Number.isInteger(prefix) || prefix < 0 || prefix > width) {
    throw new ConfigError(`trusted_proxies: "${entry}" is not an address or CIDR range`);
  }
  return { v6: ip.v6, bits: ip.bits >> BigInt(width - prefix), prefix };
}

function inRange(ip: { v6: boolean; bits: bigint }, r: Range): boolean {
  if (ip.v6 !== r.v6) return false;
  const width = ip.v6 ? 128 : 32;
  return ip.bits >> BigInt(width - r.prefix) === r.bits;
}

/** An IPv4 or IPv6 address as bits; an IPv4-mapped IPv6 address counts as its IPv4 address. */
export function parseIp(text: string): { v6: boolean; bits: bigint } | undefined {
  const s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseV4(s);
  if (v4 !== undefined) return { v6: false, bits: v4 };
  const v6 = parseV6(s);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { v6: false, bits: v6 & 0xffffffffn };
  return { v6: true, bits: v6 };
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let bits = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    bits = (bits << 8n) | BigInt(p);
  }
  return bits;
}

function parseV6(s: string): bigint | undefined {
  const zone = s.indexOf("%");
  const text = zone < 0 ? s : s.slice(0, zone);
  if (!text.includes(":")) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i === items.length - 1 && item.includes(".")) {
        const v4 = parseV4(item);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-fA-F]{1,4}$/.test(item)) {
        out.push(parseInt(item, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  let bits = 0n;
  for (const g of [...head, ...new Array<number>(missing).fill(0), ...tail]) {
    bits = (bits << 16n) | BigInt(g);
  }
  return bits;
}

/**
 * What one client's connections are capped under: its IPv4 address, or its IPv6 address's /64
 * (a host is given a whole /64 and may send from any address in it, 2^64 of them).
 */
export function capKey(address: string): string {
  if (!address.includes(":")) return address;
  const ip = parseIp(address);
  if (!ip) return address;
  if (!ip.v6) return formatIp(ip);
  return `${formatIp({ v6: true, bits: (ip.bits >> 64n) << 64n })}/64`;
}

/** The form an address is counted under, so `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function canonical(address: string): string {
  const ip = parseIp(address);
  return ip ? formatIp(ip) : address.replace(/^\[|\]$/g, "").toLowerCase();
}

/** An address as text, as the runtime writes a peer's: dotted IPv4, or IPv6 per RFC 5952. */
export function formatIp(ip: { v6: boolean; bits: bigint }): string {
  if (!ip.v6) {
    const b = Number(ip.bits);
    return [b >>> 24, (b >>> 16) & 255, (b >>> 8) & 255, b & 255].join(".");
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.bits >> BigInt(i * 16)) & 0xffffn));
  // The longest run of two or more zero groups (the first, on a tie) becomes "::".
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}
