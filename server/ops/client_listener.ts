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
 */
import type { Logger } from "../../core/log.ts";
import { ConfigError } from "../../core/settings.ts";
import { parseListen, type ServerConfig } from "../config.ts";
import { defaultSans, ensureClusterTls, loadClusterTls } from "../tls/cluster_tls.ts";
import { tlsNames } from "../nodes/cluster_listener.ts";

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

export async function startClientListener(
  config: Pick<ServerConfig, "listen" | "publicUrl">,
  fetchApp: (
    req: Request,
    env: { shutdownCut: AbortSignal; remoteAddr: Deno.NetAddr },
  ) => Response | Promise<Response>,
  logger: Logger,
  tls: ClientTls | undefined,
): Promise<ClientListener & { server: Deno.HttpServer }> {
  const { hostname, port } = parseListen(config.listen);
  const listening = Promise.withResolvers<Deno.NetAddr>();
  // Past the grace, requests still open see this as their client leaving.
  const cut = new AbortController();
  const handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) =>
    fetchApp(req, { shutdownCut: cut.signal, remoteAddr: info.remoteAddr });
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname,
      port,
      ...(tls ? { cert: tls.cert, key: tls.key } : {}),
      onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
      // Errors reach onError in the app; this catches what escapes Hono entirely.
      onError: (e) => {
        logger.error("request failed outside the app", { error: e });
        return new Response("internal error", { status: 500 });
      },
    }, handler);
  } catch (e) {
    throw new ConfigError(`Cannot listen on ${config.listen} (listen): ${(e as Error).message}`);
  }
  const addr = await listening.promise;
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
    server,
    drain(graceMs) {
      drained ??= (async () => {
        const done = server.shutdown();
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
          cut.abort(new DOMException("control plane stopping", "AbortError"));
          await done;
        }
      })();
      return drained;
    },
    cutNow: () => hurried.resolve(),
  };
}
