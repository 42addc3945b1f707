/**
 * `/metrics` on a listener of its own (`metrics_listen`, loopback by default), apart from the
 * client API: a scraper needs no key, and the client port need not expose the gateway's insides.
 * A port that cannot be bound is logged and the control plane serves on without metrics: losing
 * the graphs must not take the gateway down.
 */
import type { Logger } from "../../core/log.ts";
import { parseListen } from "./config.ts";
import type { GatewayMetrics } from "../observe/gateway_metrics.ts";

export interface MetricsListener {
  /** e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(
  listen: string,
  metrics: GatewayMetrics,
  logger: Logger,
): Promise<MetricsListener | undefined> {
  if (!listen) return undefined;
  const { hostname, port } = parseListen(listen);
  const listening = Promise.withResolvers<Deno.NetAddr>();
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname,
      port,
      onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
    }, async (req) => {
      const path = new URL(req.url).pathname;
      if (path !== "/metrics") return new Response("see /metrics\n", { status: 404 });
      if (req.method !== "GET" && req.method !== "HEAD") {
        return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
      }
      return new Response(await metrics.render(), {
        headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
      });
    });
  } catch (e) {
    logger.error("metrics listener not started; serving without /metrics", {
      listen,
      setting: "metrics_listen",
      error: e as Error,
    });
    return undefined;
  }
  const addr = await listening.promise;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${addr.port}/metrics`;
  logger.info("metrics on", { url });
  return { url, close: () => server.shutdown() };
}
