/** trusted_proxies: addresses and CIDR ranges, IPv4 and IPv6, and which X-Forwarded-For hop counts. */
import { assert, assertEquals, assertThrows } from "../../tests/assert.ts";
import { ConfigError } from "../../core/settings.ts";
import { trustedProxies } from "./trusted_proxies.ts";

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
