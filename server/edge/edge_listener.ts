/**
 * The edge: llmgw's own accept loop and HTTP/1.1 server in front of the app, because `Deno.serve`
 * has no header, body or idle timeout, no cap on connections, and ends the process when accept
 * fails for want of descriptors. Here every connection is tracked: the listener caps them per
 * client address and in all (below the open-file limit, so engines and the store keep theirs),
 * sheds the longest-idle one when full, and meets any accept error by waiting and trying again.
 */
import type { Logger } from "../../core/log.ts";
import { episodeLog } from "./episode_log.ts";
import type { ProxyProtocolMode } from "./proxy_protocol.ts";
import {
  type ConnTrack,
  type CutReason,
  type EdgeHandler,
  type EdgeTimeouts,
  type RefuseReason,
  serveConnection,
} from "./serve_connection.ts";
import { capKey, type TrustedProxies } from "./trusted_proxies.ts";

export type { RefuseReason };

/** What the edge counts; the gateway's metrics implement it. */
export interface EdgeCounters {
  refused(reason: RefuseReason): void;
  cut(reason: CutReason): void;
  open(n: number): void;
}

export interface EdgeOptions {
  hostname: string;
  port: number;
  tls?: { cert: string; key: string };
  timeouts: EdgeTimeouts;
  /** Connections one client address may hold open; 0: no cap. Trusted proxies have none. */
  maxPerAddress: number;
  /** Connections held open in all. */
  maxConnections: number;
  trusted: TrustedProxies;
  /** Whether trusted proxies' connections start with a PROXY header (absent: off). */
  proxyProtocol?: ProxyProtocolMode;
  handler: EdgeHandler;
  logger: Logger;
  counters?: EdgeCounters;
}

export interface Edge {
  readonly addr: Deno.NetAddr;
  /** Stops accepting; each answer from now on is its connection's last; resolves when none is open. */
  shutdown(): Promise<void>;
  /** Aborts every request being answered (each sees its client gone); connections stay open. */
  cutRequests(reason: unknown): void;
  /** Closes every connection now. */
  closeAll(): void;
}

interface Tracked extends ConnTrack {
  /** The address counted under the per-address cap: the peer's, or its PROXY header's client. */
  peer: string;
  state: "idle" | "busy" | "closed";
  /** When the connection is cut (performance.now()), if nothing happens first; 0: never. */
  expiresAt: number;
  expiresFor: CutReason;
  /** When a write still waiting is cut for `send_timeout`; 0: none waits. */
  sendExpiresAt: number;
  /** The request being answered on it. */
  gone: AbortController | undefined;
}

export function startEdge(opts: EdgeOptions): Edge {
  const listener = opts.tls
    ? Deno.listenTls({
      hostname: opts.hostname,
      port: opts.port,
      cert: opts.tls.cert,
      key: opts.tls.key,
      alpnProtocols: ["http/1.1"],
    })
    : Deno.listen({ hostname: opts.hostname, port: opts.port });
  const addr = listener.addr as Deno.NetAddr;
  const authority = addr.hostname.includes(":")
    ? `[${addr.hostname}]:${addr.port}`
    : `${addr.hostname}:${addr.port}`;
  const log = episodeLog(opts.logger);
  const open = new Set<Tracked>();
  /** Idle connections, longest idle first (a Set keeps insertion order). */
  const idle = new Set<Tracked>();
  const perAddress = new Map<string, number>();
  let busy = 0;
  let draining = false;
  let stopped = false;
  const allClosed = Promise.withResolvers<void>();

  const settle = () => {
    if (!draining) return;
    // The drain's end: nothing is being answered, so what is idle is closed now (a request sent
    // on it later finds it closed, not half-read).
    if (busy === 0) { for (const t of [...idle]) t.end(); }
    if (open.size === 0) {
      clearInterval(sweeper);
      allClosed.resolve();
    }
  };

  // One timer sweeps every connection's deadline: a timer set and cleared per request costs more
  // than the request's parsing, and a cut a tick late is as good.
  const { idleMs, headerMs, bodyGraceMs, sendMs } = opts.timeouts;
  const tickMs = Math.min(
    1_000,
    Math.max(20, Math.min(idleMs, headerMs, sendMs, bodyGraceMs || idleMs) / 10),
  );
  const sweeper = setInterval(() => {
    const now = performance.now();
    for (const t of open) {
      if (t.expiresAt && t.expiresAt <= now) t.cut(t.expiresFor);
      else if (t.sendExpiresAt && t.sendExpiresAt <= now) t.cut("send_timeout");
    }
  }, tickMs);

  const count = (address: string, by: 1 | -1) => {
    const key = capKey(address);
    const n = (perAddress.get(key) ?? 0) + by;
    if (n > 0) perAddress.set(key, n);
    else perAddress.delete(key);
  };
  const overCap = (address: string) =>
    opts.maxPerAddress > 0 && !opts.trusted.has(address) &&
    (perAddress.get(capKey(address)) ?? 0) >= opts.maxPerAddress;

  const track = (conn: Deno.Conn, peer: string): Tracked => {
    const t: Tracked = {
      peer,
      state: "busy",
      expiresAt: 0,
      expiresFor: "idle_timeout",
      sendExpiresAt: 0,
      gone: undefined,
      answering(gone) {
        t.gone = gone;
      },
      expire(ms, reason) {
        t.expiresAt = ms === null ? 0 : performance.now() + ms;
        if (reason) t.expiresFor = reason;
      },
      expireSend(ms) {
        t.sendExpiresAt = ms === null ? 0 : performance.now() + ms;
      },
      get draining() {
        return draining;
      },
      idle() {
        if (t.state === "busy") busy--;
        t.state = "idle";
        idle.delete(t);
        idle.add(t);
        settle();
      },
      busy() {
        if (t.state === "idle") {
          idle.delete(t);
          busy++;
        }
        t.state = "busy";
      },
      cut(reason) {
        if (t.state === "closed") return;
        opts.counters?.cut(reason);
        t.end();
      },
      claim(address) {
        if (address === t.peer) return true;
        if (overCap(address)) {
          t.end();
          refused("per_address", { address, max: opts.maxPerAddress });
          return false;
        }
        count(t.peer, -1);
        count(address, 1);
        t.peer = address;
        return true;
      },
      refuse(reason) {
        t.end();
        refused(reason, { address: t.peer });
      },
      end() {
        if (t.state === "closed") return;
        if (t.state === "busy") busy--;
        t.state = "closed";
        idle.delete(t);
        open.delete(t);
        count(t.peer, -1);
        try {
          conn.close();
        } catch {
          // Closed already.
        }
        opts.counters?.open(open.size);
        settle();
      },
    };
    busy++;
    open.add(t);
    count(peer, 1);
    opts.counters?.open(open.size);
    return t;
  };

  const refused = (reason: RefuseReason, fields: Record<string, unknown>) => {
    opts.counters?.refused(reason);
    log(reason, refusedMessages[reason], fields);
  };
  const refuse = (conn: Deno.Conn, reason: RefuseReason, fields: Record<string, unknown>) => {
    try {
      conn.close();
    } catch {
      // Closed already.
    }
    refused(reason, fields);
  };

  const admit = (conn: Deno.Conn) => {
    const peer = (conn.remoteAddr as Deno.NetAddr).hostname;
    if (overCap(peer)) {
      return refuse(conn, "per_address", { address: peer, max: opts.maxPerAddress });
    }
    if (open.size >= opts.maxConnections && !shedOne()) {
      return refuse(conn, "full", { max: opts.maxConnections });
    }
    // Each write is a whole answer or a stream's piece, to go out now: Nagle would hold a piece
    // back for the client's ACK of the one before.
    if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
    const t = track(conn, peer);
    serveConnection(conn, t, {
      scheme: opts.tls ? "https" : "http",
      authority,
      timeouts: opts.timeouts,
      clientOf: opts.trusted.clientOf,
      proxyProtocol: opts.proxyProtocol ?? "off",
      trusted: opts.trusted.has,
      handler: opts.handler,
      onHandlerError: (e) => opts.logger.error("request failed outside the app", { error: e }),
    }).catch((e) => opts.logger.error("client connection failed", { error: e })).finally(() =>
      t.end()
    );
  };

  /** Closes the longest-idle connection to make room; false when none is idle. */
  const shedOne = (): boolean => {
    const oldest = idle.values().next();
    if (oldest.done) return false;
    oldest.value.cut("shed");
    return true;
  };

  (async () => {
    let backoffMs = 0;
    while (!stopped) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (e) {
        if (stopped) break;
        const reason: RefuseReason = isDescriptorShortage(e) ? "descriptors" : "accept_error";
        opts.counters?.refused(reason);
        log(reason, refusedMessages[reason], { error: (e as Error).message });
        // Out of descriptors: an idle connection gives one back at once; otherwise wait a little
        // longer each time (a connection ending frees one too), never giving up.
        if (reason === "descriptors" && shedOne()) continue;
        backoffMs = Math.min(1_000, Math.max(5, backoffMs * 2));
        await new Promise((r) => setTimeout(r, backoffMs));
        continue;
      }
      backoffMs = 0;
      if (draining) {
        conn.close();
        continue;
      }
      admit(conn);
    }
  })();

  return {
    addr,
    shutdown() {
      if (!draining) {
        draining = true;
        stopped = true;
        listener.close();
        settle();
      }
      return allClosed.promise;
    },
    cutRequests(reason) {
      for (const t of open) t.gone?.abort(reason);
    },
    closeAll() {
      for (const t of [...open]) t.cut("shutdown");
    },
  };
}

const refusedMessages: Record<RefuseReason, string> = {
  per_address: "refusing connections from an address over listener.max_connections_per_address",
  full: "refusing connections: as many are open as the open-file limit allows, none of them idle",
  descriptors: "accepting connections failed: out of file descriptors; shedding idle ones",
  accept_error: "accepting connections failed; trying again",
  proxy_untrusted:
    "closing connections that start with a PROXY header from an address not in trusted_proxies",
  proxy_malformed: "closing a trusted proxy's connections whose PROXY header is malformed",
  proxy_missing:
    "closing a trusted proxy's connections without a PROXY header (listener.proxy_protocol: required)",
};

function isDescriptorShortage(e: unknown): boolean {
  const m = (e as Error)?.message ?? "";
  return /too many open files|EMFILE|ENFILE|os error 2[34]\b/i.test(m);
}

/** How many connections the edge may hold: the open-file limit, less room for the rest of us. */
export function connectionBudget(nofileSoft: number): number {
  return nofileSoft >= 1_024 ? nofileSoft - 256 : Math.max(16, Math.floor(nofileSoft / 2));
}
