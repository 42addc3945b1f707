/**
 * The edge with no connection budget, for the test of what it does when accept itself fails for
 * want of descriptors (run under `prlimit --nofile=…`): prints its port, then serves "ok".
 */
import { createLogger } from "../../../core/log.ts";
import { startEdge } from "../edge_listener.ts";
import { trustedProxies } from "../trusted_proxies.ts";

const counts: Record<string, number> = {};
const edge = startEdge({
  hostname: "127.0.0.1",
  port: 0,
  timeouts: {
    headerMs: 10_000,
    idleMs: 60_000,
    bodyGraceMs: 10_000,
    bodyMinBytesPerSecond: 0,
    sendMs: 60_000,
  },
  maxPerAddress: 0,
  maxConnections: Number.MAX_SAFE_INTEGER,
  trusted: trustedProxies(""),
  handler: (req) =>
    new URL(req.url).pathname === "/counts" ? Response.json(counts) : new Response("ok"),
  logger: createLogger({ sink: (l) => console.log(l) }),
  counters: {
    refused: (r) => (counts[r] = (counts[r] ?? 0) + 1),
    cut: (r) => (counts[`cut_${r}`] = (counts[`cut_${r}`] ?? 0) + 1),
    open: () => {},
  },
});
console.log(`port ${edge.addr.port}`);
