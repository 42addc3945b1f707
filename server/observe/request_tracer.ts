/**
 * The access log's view of tracing: a request for a model ended. With tracing off it is a no-op,
 * so the log neither tests for a tracer nor builds the span's fields for nothing.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { Tracer } from "./tracing.ts";

export interface RequestTracer {
  ended(c: Context<AppEnv>, route: string, status: number, startMs: number, endMs: number): void;
}

export const noTracing: RequestTracer = { ended() {} };

export function requestTracer(tracer: Tracer): RequestTracer {
  return {
    ended(c, route, status, startMs, endMs) {
      const traceparent = c.req.header("traceparent");
      const genAi = c.get("genAi");
      tracer.requestEnded({
        requestId: c.get("requestId"),
        method: c.req.method,
        route,
        status,
        startMs,
        endMs,
        ...(genAi ? { genAi } : {}),
        ...(traceparent ? { traceparent } : {}),
      });
    },
  };
}
