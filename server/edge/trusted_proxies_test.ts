/** trusted_proxies: addresses and CIDR ranges, IPv4 and IPv6, and which X-Forwarded-For hop counts. */
import { assert, assertEquals, assertThrows } from "../../tests/assert.ts";
import { ConfigError } from "../../core/settings.ts";
import { capKey, formatIp, parseIp, trustedProxies } from "./trusted_proxies.ts";

Deno.test("trusted_proxies: ranges match IPv4, IPv6 and IPv4-mapped addresses", () => {
  const t = trustedProxies("10.0.0.0/8, 192.168.1.7, fd00::/8, ::1");
  assert(t.has("10.200.3.4") && t.has("192.168.1.7") && t.has("fd12::5") && t.has("::1"));
  assert(t.has("::ffff:10.1.1.1"), "an IPv4-mapped address is its IPv4 address");
  assert(!t.has("11.0.0.1") && !t.has("192.168.1.8") && !t.has("fe80::1") && !t.has("junk"));
  assert(!trustedProxies("").has("127.0.0.1"), "nobody is trusted by default");
  assertThrows(() => trustedProxies("10.0.0.0/33"), ConfigError, "not an address or CIDR");
  assertThrows(() => trustedProxies("proxy.local"), ConfigError, "not an address or CIDR");
});

Deno.test("trusted_proxies: the client is the nearest untrusted hop; an untrusted peer's header is ignored", () => {
  const t = trustedProxies("10.0.0.0/8");
  assertEquals(t.clientOf("10.0.0.2", "1.2.3.4, 203.0.113.9, 10.0.0.9"), "203.0.113.9");
  assertEquals(t.clientOf("10.0.0.2", "::ffff:203.0.113.9"), "203.0.113.9");
  assertEquals(t.clientOf("10.0.0.2", "10.0.0.5, 10.0.0.6"), "10.0.0.5", "all trusted: the first");
  assertEquals(t.clientOf("10.0.0.2", "not-an-ip"), "10.0.0.2", "a garbled header: the peer");
  assertEquals(t.clientOf("10.0.0.2", null), "10.0.0.2");
  assertEquals(t.clientOf("198.51.100.1", "203.0.113.9"), "198.51.100.1");
});

Deno.test("trusted_proxies: addresses are written one way (RFC 5952), so one client counts as one", () => {
  const write = (s: string) => formatIp(parseIp(s)!);
  assertEquals(write("2001:DB8:0:0:0:0:0:9"), "2001:db8::9");
  assertEquals(write("2001:db8:0:1:0:0:0:1"), "2001:db8:0:1::1", "the longest zero run");
  assertEquals(write("2001:0:0:1:0:0:1:1"), "2001::1:0:0:1:1", "the first of equal runs");
  assertEquals(write("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1", "one zero group stays");
  assertEquals(write("::"), "::");
  assertEquals(write("::1"), "::1");
  assertEquals(write("fe80::"), "fe80::");
  assertEquals(write("::ffff:10.0.0.1"), "10.0.0.1");
});

Deno.test("trusted_proxies: connections are capped per IPv4 address or per IPv6 /64", () => {
  assertEquals(capKey("198.51.100.7"), "198.51.100.7");
  assertEquals(capKey("2001:db8:0:1:ffff::b"), "2001:db8:0:1::/64");
  assertEquals(capKey("2001:DB8:0:1::a"), "2001:db8:0:1::/64");
  assertEquals(capKey("::ffff:198.51.100.7"), "198.51.100.7");
  assertEquals(capKey("::1"), "::/64");
});
