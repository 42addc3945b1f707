/** The edge's settings: the client listener's timeouts and caps, and whose forwarded address counts. */
import { int, oneOf, text } from "../../core/settings.ts";

export const edgeSettings = {
  listenerHeaderTimeoutMs: int(
    "listener.header_timeout_ms",
    20_000,
    "A request's headers must all arrive within this long of its first byte, or the connection is closed, in ms",
    { min: 100 },
  ),
  listenerIdleTimeoutMs: int(
    "listener.idle_timeout_ms",
    75_000,
    "A connection with no request under way (a new one, or kept alive after an answer) is closed after this long, in ms",
    { min: 100 },
  ),
  listenerBodyMinRate: int(
    "listener.body_min_rate_bytes_per_s",
    500,
    "Past listener.body_grace_ms, a request body arriving slower than this on average is cut, in bytes a second (0: no minimum)",
    { min: 0 },
  ),
  listenerBodyGraceMs: int(
    "listener.body_grace_ms",
    20_000,
    "How long a request body may take before its minimum rate applies, in ms",
    { min: 0 },
  ),
  listenerSendTimeoutMs: int(
    "listener.send_timeout_ms",
    60_000,
    "A write to a client that takes longer than this (it reads nothing of its answer) closes the connection, in ms",
    { min: 100 },
  ),
  listenerMaxPerAddress: int(
    "listener.max_connections_per_address",
    256,
    "Connections one client address may hold open at once; more are closed as they come (0: no cap; trusted proxies have none)",
    { min: 0 },
  ),
  trustedProxies: text(
    "trusted_proxies",
    "",
    "Addresses or CIDR ranges of proxies whose X-Forwarded-For names the client, comma-separated; used by every per-address rule (empty: nobody's is believed)",
  ),
  listenerProxyProtocol: oneOf(
    "listener.proxy_protocol",
    ["off", "optional", "required"],
    "off",
    "Whether connections from trusted_proxies start with a PROXY protocol header (v1 or v2) naming the client: off (never read), optional (read when sent), required (closed without one); anyone else's that starts with one is closed. Needs a plain HTTP listener (the proxy terminates TLS)",
  ),
};
