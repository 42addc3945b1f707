/**
 * One access-log line per request, and the HTTP counters, written when the answer has been sent
 * whole (for a stream: when it ends), so duration and bytes are the real ones. The line holds the
 * request id (also sent as `x-request-id`), method, route pattern, status, client address, duration, model and
 * byte counts; never a path's parameters, a query string, a prompt, an answer or a header value.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes, routePath } from "hono/route";
import type { Logger } from "../../core/log.ts";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import type { GatewayMetrics } from "./gateway_metrics.ts";
import type { RequestTracer } from "./request_tracer.ts";
import { AnswerMeter } from "./answer_meter.ts";

export function accessLog(
  logger: Logger,
  metrics: Pick<GatewayMetrics, "observeHttp">,
  tracer: RequestTracer,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const startedAt = Date.now();
    const meter = new AnswerMeter();
    c.set("answerMeter", meter);
    await next();
    const route = matchedRoute(c);
    const err = c.error instanceof AppError ? c.error : undefined;
    const status = c.res.status;
    const finish = (bytesOut: number | null) => {
      const model = c.get("model");
      metrics.observeHttp(
        c.req.method,
        route,
        status,
        err ? { code: err.code, ...(model ? { model } : {}) } : undefined,
      );
      logger.info("request", {
        request_id: c.get("requestId"),
        method: c.req.method,
        route,
        status,
        // The client as the listener names it: behind a trusted proxy, the forwarded address.
        ...(c.env?.remoteAddr?.hostname ? { client: c.env.remoteAddr.hostname } : {}),
        duration_ms: Math.round(performance.now() - started),
        ...(model ? { model } : {}),
        ...(err ? { code: err.code } : {}),
        bytes_in: Number(c.req.header("content-length") ?? 0) || 0,
        ...(bytesOut === null ? {} : { bytes_out: bytesOut }),
      });
      if (model) {
        tracer.ended(c, route, status, startedAt, startedAt + (performance.now() - started));
      }
    };
    if (meter.claimed) {
      meter.ended.then(finish);
      return;
    }
    if (c.res.body === null) return finish(0);
    if (isWholeAnswer(c.res)) {
      // An answer made whole in memory (JSON, a page) is passed on as bytes: its length is known,
      // and the server writes bytes in one go where a stream costs it a round per chunk (GET
      // /v1/models over HTTP took four times a bare handler's time when counted through a stream).
      // Its length declared, the listener writes it without a stream's machinery (response_writer.ts).
      const bytes = await c.res.bytes();
      const { status, statusText, headers } = c.res;
      // Set on the copy: the answer's own headers may be immutable (a Response from fetch).
      const whole = new Response(bytes, { status, statusText, headers });
      whole.headers.set("content-length", String(bytes.byteLength));
      c.res = whole;
      return finish(bytes.byteLength);
    }
    const body = c.res.body;
    let bytes = 0;
    let done = false;
    const once = () => {
      if (!done) finish(bytes);
      done = true;
    };
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          bytes += chunk.byteLength;
          ctl.enqueue(chunk);
        },
        flush: once,
        cancel: once,
      }),
    );
    c.res = new Response(counted, c.res);
  };
}

/**
 * JSON, HTML and plain text are made whole by the app's own handlers; anything else (a weights
 * file, an event stream) may be large or open-ended and is counted as it streams.
 */
function isWholeAnswer(res: Response): boolean {
  const type = res.headers.get("content-type") ?? "";
  return /^(application\/json|text\/html|text\/plain)/.test(type) &&
    !res.headers.has("content-range");
}

/**
 * The pattern the answering handler was registered under. A request a middleware refused (a bad
 * key on /v1) counts under the route it was for; `unmatched` only for a 404 of no route.
 */
function matchedRoute(c: Context<AppEnv>): string {
  const p = routePath(c);
  if (p && !p.endsWith("*")) return p;
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const path = routes[i]!.path;
    if (path && !path.endsWith("*")) return path;
  }
  return "unmatched";
}
