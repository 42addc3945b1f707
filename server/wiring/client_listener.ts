/**
 * The client API and portal listener: HTTPS with the operator's certificate files
 * (`tls.cert_file`, `tls.key_file`), or with the cluster CA's own certificate from `init`
 * (`https: true`); plain HTTP only on a loopback address unless `allow_plain_http` says
 * otherwise (keys and passwords would cross the network in the clear).
 *
 * Shutdown is in two steps: `drain` stops taking connections and lets requests in flight (streams
 * included) finish within the grace, then cuts what is left (the router sees the client gone:
 * the engine request is aborted and its usage row written as 499); `close` is then immediate.
 * `cutNow` ends the grace early.
 *
 * The listener is the edge (server/edge/): llmgw's own accept loop and HTTP/1.1 server, with the
 * timeouts and caps `Deno.serve` lacks (`listener.*`, `trusted_proxies`), and the PROXY protocol
 * from trusted proxies (`listener.proxy_protocol`).
 */
import type { Logger } from "../../core/log.ts";
import { ConfigError } from "../../core/settings.ts";
import { parseListen, type ServerConfig } from "./config.ts";
import { defaultSans, ensureClusterTls, loadClusterTls, tlsNames } from "../tls/cluster_tls.ts";
import {
  connectionBudget,
  type Edge,
  type EdgeCounters,
  startEdge,
} from "../edge/edge_listener.ts";
import { raiseNofileLimit } from "../edge/nofile.ts";
import { trustedProxies } from "../edge/trusted_proxies.ts";

export interface ClientListener {
  readonly url: string;
  /** Served over HTTPS: session cookies must be Secure. */
  readonly secure: boolean;
  drain(graceMs: number): Promise<void>;
  /** Ends a drain's grace now: what is still open is cut (a drain not begun yet gets none). */
  cutNow(): void;
}

export interface ClientTls {
  cert: string;
  key: string;
}

/** Decides plain or TLS from the settings, refusing plain HTTP on a non-loopback address. */
export async function clientTls(
  config: Pick<
    ServerConfig,
    "tlsCertFile" | "tlsKeyFile" | "https" | "dataDir" | "tlsNames" | "listen" | "allowPlainHttp"
  >,
): Promise<ClientTls | undefined> {
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) {
    throw new ConfigError("tls.cert_file and tls.key_file go together: set both or neither");
  }
  if (config.tlsCertFile) {
    const read = async (path: string, key: string) => {
      try {
        return await Deno.readTextFile(path);
      } catch (e) {
        throw new ConfigError(`Cannot read ${key} ${path}: ${(e as Error).message}`);
      }
    };
    return {
      cert: await read(config.tlsCertFile, "tls.cert_file"),
      key: await read(config.tlsKeyFile, "tls.key_file"),
    };
  }
  if (config.https) {
    await ensureClusterTls(
      config.dataDir,
      config.tlsNames ? tlsNames(config.tlsNames) : defaultSans(),
    );
    const t = await loadClusterTls(config.dataDir);
    return { cert: t.certChainPem, key: t.keyPem };
  }
  const { hostname } = parseListen(config.listen);
  if (!isLoopback(hostname) && !config.allowPlainHttp) {
    throw new ConfigError(
      `listen ${config.listen} is not a loopback address and HTTPS is off: API keys and passwords ` +
        `would cross the network in the clear. Set https: true (the cluster's own certificate), ` +
        `tls.cert_file and tls.key_file, or allow_plain_http: true behind a TLS proxy`,
    );
  }
  return undefined;
}

export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

/** What the edge counts, for the gateway's metrics (absent in tests that do not look). */
export type ListenerCounters = EdgeCounters;

export function startClientListener(
  config: Pick<
    ServerConfig,
    | "listen"
    | "publicUrl"
    | "trustedProxies"
    | "listenerHeaderTimeoutMs"
    | "listenerIdleTimeoutMs"
    | "listenerBodyGraceMs"
    | "listenerBodyMinRate"
    | "listenerSendTimeoutMs"
    | "listenerMaxPerAddress"
    | "listenerProxyProtocol"
  >,
  fetchApp: (
    req: Request,
    env: { clientGone: AbortSignal; remoteAddr: Deno.NetAddr },
  ) => Response | Promise<Response>,
  logger: Logger,
  tls: ClientTls | undefined,
  counters?: ListenerCounters,
): ClientListener {
  const { hostname, port } = parseListen(config.listen);
  if (tls && config.listenerProxyProtocol !== "off") {
    // The header comes before the TLS handshake, and a TLS listener reads a handshake first.
    throw new ConfigError(
      `listener.proxy_protocol: ${config.listenerProxyProtocol} needs a plain HTTP listener: the ` +
        `PROXY header comes before any TLS. Let the proxy terminate TLS (allow_plain_http: true), ` +
        `or set listener.proxy_protocol: off`,
    );
  }
  const trusted = trustedProxies(config.trustedProxies);
  const maxConnections = connectionBudget(openFileLimit(logger));
  let edge: Edge;
  try {
    edge = startEdge({
      hostname,
      port,
      ...(tls ? { tls } : {}),
      timeouts: {
        headerMs: config.listenerHeaderTimeoutMs,
        idleMs: config.listenerIdleTimeoutMs,
        bodyGraceMs: config.listenerBodyGraceMs,
        bodyMinBytesPerSecond: config.listenerBodyMinRate,
        sendMs: config.listenerSendTimeoutMs,
      },
      maxPerAddress: config.listenerMaxPerAddress,
      maxConnections,
      trusted,
      proxyProtocol: config.listenerProxyProtocol,
      handler: (req, info) =>
        fetchApp(req, { clientGone: info.signal, remoteAddr: info.remoteAddr }),
      logger,
      ...(counters ? { counters } : {}),
    });
  } catch (e) {
    throw new ConfigError(`Cannot listen on ${config.listen} (listen): ${(e as Error).message}`);
  }
  const addr = edge.addr;
  const shownHost = addr.hostname === "0.0.0.0" || addr.hostname === "::"
    ? (tls ? "localhost" : "127.0.0.1")
    : addr.hostname.includes(":")
    ? `[${addr.hostname}]`
    : addr.hostname;
  const url = config.publicUrl || `${tls ? "https" : "http"}://${shownHost}:${addr.port}`;
  let drained: Promise<void> | undefined;
  const hurried = Promise.withResolvers<void>();
  return {
    url,
    secure: tls !== undefined,
    drain(graceMs) {
      drained ??= (async () => {
        const done = edge.shutdown();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const ended = await Promise.race([
          done.then(() => "finished" as const),
          new Promise<"grace over">((r) => (timer = setTimeout(() => r("grace over"), graceMs))),
          hurried.promise.then(() => "asked again" as const),
        ]);
        clearTimeout(timer);
        if (ended !== "finished") {
          logger.warn(
            ended === "asked again"
              ? "stopping now, as asked again: cutting requests still open"
              : "requests still open after the shutdown grace; cutting them",
            { graceMs },
          );
          // Past the grace, requests still open see this as their client leaving.
          edge.cutRequests(new DOMException("control plane stopping", "AbortError"));
          // The cut ends each answer (its usage row written as the client's leaving); a
          // connection still open after that is closed under it.
          const late = setTimeout(() => edge.closeAll(), cutWaitMs);
          await done;
          clearTimeout(late);
        }
      })();
      return drained;
    },
    cutNow: () => hurried.resolve(),
  };
}

/** How long answers have to end once cut before their connections are closed under them. */
const cutWaitMs = 5_000;

/**
 * Raises the soft open-file limit as far as the hard one allows (Deno 2.9 does so itself at
 * start; this holds whatever the runtime does) and logs the limit in force and what it allows.
 */
function openFileLimit(logger: Logger): number {
  const limit = raiseNofileLimit();
  if (!limit) {
    logger.warn("cannot read or raise the open-file limit (no libc): assuming 1024");
    return 1_024;
  }
  logger.info("open-file limit", {
    soft: limit.soft,
    hard: limit.hard,
    ...(limit.raisedFrom !== undefined ? { raisedFrom: limit.raisedFrom } : {}),
    clientConnections: connectionBudget(limit.soft),
  });
  return limit.soft;
}
