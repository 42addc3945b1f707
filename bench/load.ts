/**
 * Closed-loop load against an OpenAI-compatible chat endpoint: N clients, each sending its next
 * request as soon as the last one ends, over fetch's keep-alive pool. Every run is bounded: no
 * new request after the duration (or the request count), and whatever is still open when the
 * per-request timeout has passed beyond that is aborted and counted as a timeout.
 */
import { summarize, type Summary } from "./percentiles.ts";
import { SseCounter } from "./sse_counter.ts";

export interface LoadOptions {
  /** OpenAI base URL, e.g. `http://127.0.0.1:8080/v1`; requests go to `<url>/chat/completions`. */
  url: string;
  /** Sent as a bearer token; never part of a result. */
  key?: string | undefined;
  model: string;
  concurrency: number;
  stream: boolean;
  maxTokens: number;
  /** Roughly how many tokens the prompt is (one short word per token). */
  promptTokens: number;
  /** How long to keep sending, in ms. With `requests` too, whichever ends first. */
  durationMs?: number | undefined;
  /** How many requests to send in all. */
  requests?: number | undefined;
  /** A request open this long is aborted and counted as a timeout. */
  timeoutMs: number;
  /** Ask a streaming server for its usage chunk (exact token counts); content events otherwise. */
  streamUsage: boolean;
  /** Aborting it ends the run early (Ctrl-C); what was measured is still reported. */
  signal?: AbortSignal | undefined;
}

export type ErrorKind = `http_${number}` | "connect" | "timeout" | "stream_cut" | "bad_body";

export interface LoadResult {
  concurrency: number;
  stream: boolean;
  maxTokens: number;
  promptTokens: number;
  /** From the first request sent to the last one ended, in seconds. */
  elapsedS: number;
  /** Requests that ended, well or not. */
  requests: number;
  ok: number;
  errors: Partial<Record<ErrorKind, number>>;
  /** The first message seen for each kind of error, to say what went wrong. */
  errorSamples: Partial<Record<ErrorKind, string>>;
  requestsPerSecond: number;
  /** Completion tokens of successful requests over the elapsed time. */
  tokensPerSecond: number;
  tokens: number;
  /** Where token counts came from: the server's usage, or one per content event. */
  tokensFrom: "usage" | "events" | "mixed";
  /** Time to the first content event of a stream, successful requests only; null if not streamed. */
  ttftMs: Summary | null;
  /** Whole request time of successful requests. */
  latencyMs: Summary | null;
  /** The raw samples, for merging runs (see mergeResults); left out of printed JSON. */
  samples?: { latencyMs: number[]; ttftMs: number[] };
}

const words = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "again"];

/** A user message the sim engine (and most tokenizers) count as about `tokens` tokens. */
export function promptOf(tokens: number): string {
  const n = Math.max(1, tokens);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(words[i % words.length]!);
  return out.join(" ");
}

/** The chat completions URL for a base URL; a bare `http://host:port` gets `/v1`. */
export function chatUrl(base: string): string {
  const u = new URL(base);
  const path = u.pathname.replace(/\/+$/, "");
  u.pathname = `${path === "" ? "/v1" : path}/chat/completions`;
  return u.toString();
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.durationMs === undefined && opts.requests === undefined) {
    throw new TypeError("a load run needs a duration or a request count");
  }
  const url = chatUrl(opts.url);
  const body = JSON.stringify({
    model: opts.model,
    messages: [{ role: "user", content: promptOf(opts.promptTokens) }],
    max_tokens: opts.maxTokens,
    ...(opts.stream
      ? { stream: true, ...(opts.streamUsage ? { stream_options: { include_usage: true } } : {}) }
      : {}),
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: opts.stream ? "text/event-stream" : "application/json",
  };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;

  const hardStop = new AbortController();
  const onOuterAbort = () => hardStop.abort(new DOMException("stopped", "AbortError"));
  opts.signal?.addEventListener("abort", onOuterAbort, { once: true });

  const latencies: number[] = [];
  const ttfts: number[] = [];
  const errors: Partial<Record<ErrorKind, number>> = {};
  const errorSamples: Partial<Record<ErrorKind, string>> = {};
  let tokens = 0;
  let fromUsage = 0;
  let fromEvents = 0;
  let issued = 0;
  let ended = 0;

  const fail = (kind: ErrorKind, why: string) => {
    errors[kind] = (errors[kind] ?? 0) + 1;
    // A server may echo the key in its error text; the report must not.
    errorSamples[kind] ??= (opts.key ? why.replaceAll(opts.key, "[key]") : why).slice(0, 300);
  };

  const started = performance.now();
  const deadline = opts.durationMs === undefined ? Infinity : started + opts.durationMs;
  // Past the deadline, open requests get their timeout and no more.
  const hardStopTimer = opts.durationMs === undefined ? undefined : setTimeout(
    () => hardStop.abort(new DOMException("run over", "TimeoutError")),
    opts.durationMs + opts.timeoutMs,
  );
  let lastEnd = started;

  const one = async () => {
    const t0 = performance.now();
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException("request timed out", "TimeoutError")),
      opts.timeoutMs,
    );
    const signal = AbortSignal.any([timeout.signal, hardStop.signal]);
    // Why a request failed once its signal fired: its own timeout or the run's end is a timeout;
    // a stop from outside (Ctrl-C) is no fault of the server and is not counted at all.
    let counted = true;
    const failAborted = (fallback: ErrorKind, e: unknown) => {
      if (!signal.aborted) return fail(fallback, (e as Error).message ?? String(e));
      if (timeout.signal.aborted || hardStop.signal.reason?.name === "TimeoutError") {
        return fail("timeout", "no answer within the request timeout");
      }
      counted = false;
    };
    try {
      let res: Response;
      try {
        res = await fetch(url, { method: "POST", headers, body, signal });
      } catch (e) {
        return failAborted("connect", e);
      }
      if (!res.ok) {
        const text = await res.text().catch(() => "");
        fail(`http_${res.status}`, `${res.status} ${text}`);
        return;
      }
      if (opts.stream) {
        if (!res.body) return fail("bad_body", "a stream with no body");
        const counter = new SseCounter();
        const decoder = new TextDecoder();
        let ttft = -1;
        try {
          for await (const chunk of res.body) {
            const added = counter.feed(decoder.decode(chunk, { stream: true }));
            if (added > 0 && ttft < 0) ttft = performance.now() - t0;
          }
        } catch (e) {
          return failAborted("stream_cut", e);
        }
        if (counter.error) return fail("bad_body", counter.error);
        if (!counter.done) return fail("stream_cut", "the stream ended without data: [DONE]");
        if (ttft >= 0) ttfts.push(ttft);
        if (counter.completionTokens !== null) {
          tokens += counter.completionTokens;
          fromUsage++;
        } else {
          tokens += counter.contentEvents;
          fromEvents++;
        }
      } else {
        let text: string;
        try {
          text = await res.text();
        } catch (e) {
          return failAborted("stream_cut", e);
        }
        let n: unknown;
        try {
          const parsed = JSON.parse(text);
          if (!Array.isArray(parsed?.choices)) throw new Error("no choices");
          n = parsed.usage?.completion_tokens;
        } catch {
          return fail("bad_body", text.slice(0, 200));
        }
        if (typeof n === "number") {
          tokens += n;
          fromUsage++;
        } else fromEvents++;
      }
      latencies.push(performance.now() - t0);
    } finally {
      clearTimeout(timer);
      if (counted) {
        ended++;
        lastEnd = performance.now();
      }
    }
  };

  const client = async () => {
    while (!hardStop.signal.aborted) {
      if (opts.requests !== undefined && issued >= opts.requests) return;
      if (performance.now() >= deadline) return;
      issued++;
      await one();
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, client));
  } finally {
    clearTimeout(hardStopTimer);
    opts.signal?.removeEventListener("abort", onOuterAbort);
  }

  const elapsedS = Math.max(1e-6, (lastEnd - started) / 1000);
  const ok = latencies.length;
  return {
    concurrency: opts.concurrency,
    stream: opts.stream,
    maxTokens: opts.maxTokens,
    promptTokens: opts.promptTokens,
    elapsedS,
    requests: ended,
    ok,
    errors,
    errorSamples,
    requestsPerSecond: ok / elapsedS,
    tokensPerSecond: tokens / elapsedS,
    tokens,
    tokensFrom: fromEvents === 0 ? "usage" : fromUsage === 0 ? "events" : "mixed",
    ttftMs: opts.stream ? summarize(ttfts) : null,
    latencyMs: summarize(latencies),
    samples: { latencyMs: latencies, ttftMs: ttfts },
  };
}

/**
 * One result from several runs of the same load (interleaved rounds): counts and times add up,
 * percentiles come from all samples together.
 */
export function mergeResults(runs: LoadResult[]): LoadResult {
  const first = runs[0];
  if (!first) throw new TypeError("nothing to merge");
  const errors: Partial<Record<ErrorKind, number>> = {};
  const errorSamples: Partial<Record<ErrorKind, string>> = {};
  const latencies: number[] = [];
  const ttfts: number[] = [];
  let elapsedS = 0, requests = 0, ok = 0, tokens = 0;
  const from = new Set<LoadResult["tokensFrom"]>();
  for (const r of runs) {
    elapsedS += r.elapsedS;
    requests += r.requests;
    ok += r.ok;
    tokens += r.tokens;
    if (r.ok > 0) from.add(r.tokensFrom);
    for (const [k, n] of Object.entries(r.errors) as [ErrorKind, number][]) {
      errors[k] = (errors[k] ?? 0) + n;
      const why = r.errorSamples[k];
      if (why !== undefined) errorSamples[k] ??= why;
    }
    for (const v of r.samples?.latencyMs ?? []) latencies.push(v);
    for (const v of r.samples?.ttftMs ?? []) ttfts.push(v);
  }
  return {
    concurrency: first.concurrency,
    stream: first.stream,
    maxTokens: first.maxTokens,
    promptTokens: first.promptTokens,
    elapsedS,
    requests,
    ok,
    errors,
    errorSamples,
    requestsPerSecond: ok / elapsedS,
    tokensPerSecond: tokens / elapsedS,
    tokens,
    tokensFrom: from.size === 1 ? [...from][0]! : from.size === 0 ? first.tokensFrom : "mixed",
    ttftMs: first.stream ? summarize(ttfts) : null,
    latencyMs: summarize(latencies),
    samples: { latencyMs: latencies, ttftMs: ttfts },
  };
}

/** A result as printed: without its raw samples. */
export function withoutSamples<T extends LoadResult>(r: T): Omit<T, "samples"> {
  const { samples: _, ...rest } = r;
  return rest;
}

export function errorCount(r: LoadResult): number {
  let n = 0;
  for (const v of Object.values(r.errors)) n += v ?? 0;
  return n;
}
