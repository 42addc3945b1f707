/**
 * OpenTelemetry traces over OTLP/HTTP (JSON), off when `otel.endpoint` is empty. One server span
 * per inference request, named `{operation} {model}` with the GenAI semantic conventions
 * (`gen_ai.operation.name`, request and response model, max tokens, temperature, top_p, input,
 * output and cache-read tokens) and the HTTP ones; never a prompt, an answer or a key. A W3C
 * `traceparent` from the client makes it a child of the client's trace (and its sampled flag is
 * followed); otherwise `otel.sample_percent` decides.
 *
 * A span is made from two halves that arrive in either order: the HTTP answer's end (access log)
 * and the request's usage row. Spans are queued (bounded) and exported in batches by a timer,
 * never on the request path.
 */
import type { Logger } from "../../core/log.ts";
import { VERSION } from "../../core/version.ts";
import type { UsageRow } from "../usage/recorder.ts";
import type { GenAiParams } from "./genai.ts";

export interface TracingOptions {
  /** OTLP/HTTP base URL (`http://collector:4318`) or the full `/v1/traces` URL. */
  endpoint: string;
  serviceName: string;
  /** Sent with every export: a hosted collector's credential, so never logged. */
  headers?: Record<string, string>;
  /** Resource attributes besides service.name and service.version. */
  resource?: Record<string, string>;
  samplePercent: number;
  batchMs: number;
  logger: Logger;
  /** Most spans waiting for export; the oldest are dropped past it. */
  maxQueue?: number;
}

export interface RequestEnd {
  requestId: string;
  method: string;
  route: string;
  status: number;
  startMs: number;
  endMs: number;
  genAi?: GenAiParams;
  traceparent?: string;
}

interface OtlpAttr {
  key: string;
  value: { stringValue: string } | { intValue: string } | { doubleValue: number } | {
    boolValue: boolean;
  };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttr[];
  status: { code: number; message?: string };
}

const operations: Record<string, string> = {
  "/chat/completions": "chat",
  "/completions": "text_completion",
  "/embeddings": "embeddings",
  "/rerank": "rerank",
};

/** How long one half of a span waits for the other before it is exported as it is. */
const joinWaitMs = 10_000;

export class Tracer {
  readonly #url: string;
  readonly #queue: OtlpSpan[] = [];
  readonly #halves = new Map<string, { end?: RequestEnd; row?: UsageRow; at: number }>();
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #resource: OtlpAttr[];
  #exporting: Promise<void> | undefined;
  dropped = 0;
  exported = 0;
  #warnedAt = 0;

  constructor(private readonly opts: TracingOptions) {
    const base = opts.endpoint.replace(/\/+$/, "");
    this.#url = base.endsWith("/v1/traces") ? base : `${base}/v1/traces`;
    this.#resource = Object.entries({
      ...opts.resource,
      "service.name": opts.serviceName,
      "service.version": VERSION,
    }).map(([k, v]) => str(k, v));
    this.#timer = setInterval(() => {
      this.#expireHalves();
      void this.flush();
    }, opts.batchMs);
  }

  /** The HTTP answer ended; only requests that reached dispatch (they have a model) are traced. */
  requestEnded(end: RequestEnd): void {
    this.#join(end.requestId, { end });
  }

  usage(row: UsageRow): void {
    this.#join(row.requestId, { row });
  }

  #join(id: string, half: { end?: RequestEnd; row?: UsageRow }): void {
    const h = this.#halves.get(id) ?? { at: Date.now() };
    Object.assign(h, half);
    if (h.end && h.row) {
      this.#halves.delete(id);
      this.#span(h.end, h.row);
    } else this.#halves.set(id, h);
  }

  #expireHalves(): void {
    const now = Date.now();
    for (const [id, h] of this.#halves) {
      if (now - h.at < joinWaitMs) continue;
      this.#halves.delete(id);
      if (h.end) this.#span(h.end, h.row);
    }
  }

  #span(end: RequestEnd, row: UsageRow | undefined): void {
    const parent = parseTraceparent(end.traceparent);
    const sampled = parent ? parent.sampled : Math.random() * 100 < this.opts.samplePercent;
    if (!sampled) return;
    const model = row?.model ?? "";
    const operation = operations[row?.endpoint ?? ""] ?? "chat";
    const attrs: OtlpAttr[] = [
      str("gen_ai.operation.name", operation),
      str("http.request.method", end.method),
      str("http.route", end.route),
      int("http.response.status_code", end.status),
      str("llmgw.request_id", end.requestId),
    ];
    if (model) attrs.push(str("gen_ai.request.model", model));
    const g = end.genAi ?? {};
    if (g.maxTokens !== undefined) attrs.push(int("gen_ai.request.max_tokens", g.maxTokens));
    if (g.temperature !== undefined) attrs.push(dbl("gen_ai.request.temperature", g.temperature));
    if (g.topP !== undefined) attrs.push(dbl("gen_ai.request.top_p", g.topP));
    if (row) {
      if (row.servedModel) attrs.push(str("gen_ai.response.model", row.servedModel));
      attrs.push(int("gen_ai.usage.input_tokens", row.promptTokens));
      attrs.push(int("gen_ai.usage.output_tokens", row.completionTokens));
      attrs.push(int("gen_ai.usage.cache_read.input_tokens", row.cachedTokens ?? 0));
      if (row.replicaId) attrs.push(str("llmgw.replica", row.replicaId));
      if (row.profile) attrs.push(str("llmgw.routing_profile", row.profile));
      attrs.push(int("llmgw.queue_ms", row.queueMs ?? 0));
      if (row.ttftMs !== null && row.ttftMs !== undefined) {
        attrs.push(int("llmgw.ttft_ms", row.ttftMs));
      }
    }
    const status = row?.status ?? end.status;
    this.#queue.push({
      traceId: parent?.traceId ?? randomHex(16),
      spanId: randomHex(8),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name: model ? `${operation} ${model}` : operation,
      kind: 2,
      startTimeUnixNano: nanos(end.startMs),
      endTimeUnixNano: nanos(end.endMs),
      attributes: attrs,
      status: status >= 500 ? { code: 2, message: `HTTP ${status}` } : { code: 0 },
    });
    const max = this.opts.maxQueue ?? 2048;
    if (this.#queue.length > max) {
      this.dropped += this.#queue.length - max;
      this.#queue.splice(0, this.#queue.length - max);
    }
  }

  /** Exports what is queued; concurrent calls share one run. */
  flush(): Promise<void> {
    this.#exporting ??= this.#export().finally(() => (this.#exporting = undefined));
    return this.#exporting;
  }

  async #export(): Promise<void> {
    while (this.#queue.length) {
      const spans = this.#queue.splice(0, 512);
      const body = JSON.stringify({
        resourceSpans: [{
          resource: { attributes: this.#resource },
          scopeSpans: [{ scope: { name: "llmgw", version: VERSION }, spans }],
        }],
      });
      try {
        const res = await fetch(this.#url, {
          method: "POST",
          headers: { ...this.opts.headers, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        await res.body?.cancel();
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        this.exported += spans.length;
      } catch (e) {
        // A collector that is down costs these spans, never a request; said once a minute.
        this.dropped += spans.length;
        if (Date.now() - this.#warnedAt > 60_000) {
          this.#warnedAt = Date.now();
          this.opts.logger.warn("traces not exported", {
            endpoint: new URL(this.#url).origin,
            error: (e as Error).message,
          });
        }
        return;
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    for (const [id, h] of this.#halves) {
      this.#halves.delete(id);
      if (h.end) this.#span(h.end, h.row);
    }
    await this.flush();
  }
}

export function parseTraceparent(
  v: string | undefined,
): { traceId: string; spanId: string; sampled: boolean } | undefined {
  const m = v ? /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(v.trim()) : null;
  if (!m || /^0+$/.test(m[1]!) || /^0+$/.test(m[2]!)) return undefined;
  return { traceId: m[1]!, spanId: m[2]!, sampled: (parseInt(m[3]!, 16) & 1) === 1 };
}

function str(key: string, v: string): OtlpAttr {
  return { key, value: { stringValue: v } };
}
function int(key: string, v: number): OtlpAttr {
  return { key, value: { intValue: String(Math.round(v)) } };
}
function dbl(key: string, v: number): OtlpAttr {
  return { key, value: { doubleValue: v } };
}
function nanos(ms: number): string {
  return (BigInt(Math.round(ms * 1000)) * 1000n).toString();
}
function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) =>
    b.toString(16).padStart(2, "0")
  ).join("");
}
