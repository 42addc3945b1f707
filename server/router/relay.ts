/**
 * Relays one OpenAI-style request to one replica and the answer back, as it arrives. What the
 * client sent passes through untouched except that a streamed request always asks the engine for
 * usage (so usage is always known) and the usage chunk is withheld from a client that did not ask.
 *
 * Either the request failed before anything reached the client (`failed`: dispatch may try
 * elsewhere; `onDone` is not called) or an answer is under way (`answered`: `onDone` gets one
 * outcome when it ends, however it ends). Nothing is retried once the answer has started.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { AppError, errorBody } from "../errors.ts";
import type { Replica } from "./replicas.ts";
import type { Upstream, UpstreamAnswer } from "./upstream/upstream.ts";

export interface RelayOutcome {
  /** What the client was sent; 499 when the client went away first, 504 for a stalled engine. */
  status: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the engine's cache, within promptTokens. */
  cachedTokens: number;
  /** Time to the first byte of the answer; null when none arrived. */
  ttftMs: number | null;
  latencyMs: number;
  /** Body bytes the client was sent (the access log's `bytes_out`). */
  bytesOut: number;
}

export interface RelayRequest {
  upstream: Upstream;
  replica: Replica;
  /** The OpenAI path under the replica's API base, e.g. `/chat/completions`. */
  path: string;
  body: Record<string, unknown>;
  /** `body` as the client sent it: sent as it is when nothing in it needs changing. */
  rawBody?: Uint8Array<ArrayBuffer>;
  /** Aborted when the client disconnects. */
  clientSignal: AbortSignal;
  firstByteTimeoutMs: number;
  /** A stream with no bytes from the engine for this long is cut with a proper end. */
  idleTimeoutMs: number;
  /** Statuses that mean "this endpoint cannot answer now": passed to another when one is left. */
  retryable: (status: number) => boolean;
  /** Sent back as `x-llmgw-served-model`. */
  servedModel: string;
  onDone: (outcome: RelayOutcome) => void;
}

export type RelayResult =
  | { kind: "answered"; response: Response; ttftMs: number | null }
  | {
    kind: "failed";
    /** 0 when the engine could not be reached. */
    status: number;
    detail: string;
    /** The engine's own error answer, passed on when no other endpoint is left. */
    answer?: { text: string; contentType: string };
  };

const encoder = new TextEncoder();
const nullUsage = /,\s*"usage"\s*:\s*null|"usage"\s*:\s*null\s*,?/;
const nullUsageAnywhere = /,"usage":null|"usage":null,?/g;
const usageObject = /"usage":\s*\{/;
/** Durations come from a monotonic timer: a wall clock can jump. */
const elapsed = (since: number) => Math.round(performance.now() - since);

export async function relay(req: RelayRequest): Promise<RelayResult> {
  const { replica, body } = req;
  const started = performance.now();
  const stream = body.stream === true;
  const clientWantsUsage = stream && isRecord(body.stream_options) &&
    body.stream_options.include_usage === true;
  const upstreamBody = stream && !clientWantsUsage
    ? {
      ...body,
      stream_options: {
        ...(isRecord(body.stream_options) ? body.stream_options : {}),
        include_usage: true,
      },
    }
    : body;

  const upstreamAbort = new AbortController();
  const onClientAbort = () =>
    upstreamAbort.abort(new DOMException("client went away", "AbortError"));
  req.clientSignal.addEventListener("abort", onClientAbort, { once: true });
  const firstByteTimer = setTimeout(
    () => upstreamAbort.abort(new DOMException("no first byte in time", "TimeoutError")),
    req.firstByteTimeoutMs,
  );
  const detach = () => {
    clearTimeout(firstByteTimer);
    req.clientSignal.removeEventListener("abort", onClientAbort);
  };

  let finished = false;
  const finish = (o: Finished) => {
    if (finished) return;
    finished = true;
    detach();
    req.onDone({ ...o, latencyMs: elapsed(started) });
  };
  const headers = { "x-llmgw-served-model": req.servedModel };

  let upstream: UpstreamAnswer;
  try {
    upstream = await req.upstream.post({
      url: replica.apiBase + req.path,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${replica.apiKey}`,
        accept: stream ? "text/event-stream" : "application/json",
      },
      body: upstreamBytes(body, upstreamBody, req.rawBody),
      signal: upstreamAbort.signal,
    });
  } catch (e) {
    if (req.clientSignal.aborted) {
      finish({ ...noTokens, status: 499, ttftMs: null, bytesOut: 0 });
      return { kind: "answered", response: new Response(null, { status: 499 }), ttftMs: null };
    }
    detach();
    const timedOut = (e as Error).name === "TimeoutError";
    if (timedOut) {
      // Waiting as long again elsewhere would double what the client already waited: no retry.
      finish({ ...noTokens, status: 502, ttftMs: null, bytesOut: 0 });
      throw new AppError("engine_error", { model: replica.model, detail: "no answer in time" });
    }
    return { kind: "failed", status: 0, detail: "the engine could not be reached" };
  }
  const ttftMs = elapsed(started);
  clearTimeout(firstByteTimer);

  if (req.retryable(upstream.status)) {
    detach();
    const text = await upstream.text().catch(() => "");
    const contentType = upstream.header("content-type") ?? "application/json";
    return {
      kind: "failed",
      status: upstream.status,
      detail: `status ${upstream.status}`,
      answer: { text, contentType },
    };
  }
  const isEventStream = (upstream.header("content-type") ?? "").includes("text/event-stream");
  if (!isOk(upstream.status) || !isEventStream) {
    const response = await relayWhole(upstream, replica.model, ttftMs, finish, headers);
    return { kind: "answered", response, ttftMs };
  }
  const response = relayStream(upstream, {
    clientWantsUsage,
    started,
    idleTimeoutMs: req.idleTimeoutMs,
    model: replica.model,
    abort: () => upstreamAbort.abort(),
    clientGone: () => req.clientSignal.aborted,
    finish,
    headers,
  });
  return { kind: "answered", response, ttftMs };
}

const noTokens = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
const usageOption = encoder.encode(',"stream_options":{"include_usage":true}');
const closingBrace = 0x7d;

/**
 * What goes to the engine: the client's own bytes when the body is unchanged, or when the only
 * change is the usage option of a body that has no `stream_options` (appended before its closing
 * brace); otherwise the body written anew. A long prompt costs as much to write as to read.
 */
function upstreamBytes(
  body: Record<string, unknown>,
  upstreamBody: Record<string, unknown>,
  raw: Uint8Array<ArrayBuffer> | undefined,
): Uint8Array<ArrayBuffer> {
  if (raw && upstreamBody === body) return raw;
  if (raw && !("stream_options" in body)) {
    // The body parsed as a JSON object with a model in it: its last non-blank byte closes it.
    let end = raw.byteLength - 1;
    while (end > 0 && raw[end] !== closingBrace) end--;
    if (end > 0) {
      const out = new Uint8Array(end + usageOption.byteLength + 1);
      out.set(raw.subarray(0, end));
      out.set(usageOption, end);
      out[out.byteLength - 1] = closingBrace;
      return out;
    }
  }
  return encoder.encode(JSON.stringify(upstreamBody));
}
type Finished = Omit<RelayOutcome, "latencyMs">;

/** Passes on an engine's answer that failed and could not go elsewhere, as it came. */
export function passOn(
  model: string,
  answer: { text: string; contentType: string },
  status: number,
  servedModel: string,
): Response {
  if (!answer.contentType.includes("json")) {
    throw new AppError("engine_error", { model, detail: `status ${status}` });
  }
  return new Response(answer.text, {
    status,
    headers: { "content-type": answer.contentType, "x-llmgw-served-model": servedModel },
  });
}

/** A JSON answer (or an engine's error) is passed on as it came, after reading its usage. */
async function relayWhole(
  upstream: UpstreamAnswer,
  model: string,
  ttftMs: number,
  finish: (o: Finished) => void,
  headers: Record<string, string>,
): Promise<Response> {
  let text: string;
  try {
    text = await upstream.text();
  } catch {
    finish({ ...noTokens, status: 499, ttftMs, bytesOut: 0 });
    return new Response(null, { status: 499 });
  }
  const usage = readUsage(safeJson(text));
  const contentType = upstream.header("content-type") ?? "application/json";
  if (!isOk(upstream.status) && !contentType.includes("json")) {
    finish({ status: upstream.status, ...usage, ttftMs, bytesOut: 0 });
    // An engine that fails with a non-JSON body still answers the client in OpenAI's shape.
    throw new AppError("engine_error", { model, detail: `status ${upstream.status}` });
  }
  // Bytes, not the string: the server writes them in one go, and their length is bytes_out.
  const bytes = encoder.encode(text);
  finish({ status: upstream.status, ...usage, ttftMs, bytesOut: bytes.byteLength });
  return new Response(bytes, {
    status: upstream.status,
    headers: { "content-type": contentType, ...headers },
  });
}

function relayStream(
  answer: UpstreamAnswer,
  opts: {
    clientWantsUsage: boolean;
    started: number;
    idleTimeoutMs: number;
    model: string;
    abort: () => void;
    /** True once the client disconnected: a read that fails then is the client's doing. */
    clientGone: () => boolean;
    finish: (o: Finished) => void;
    headers: Record<string, string>;
  },
): Response {
  const decoder = new TextDecoder();
  let promptTokens = 0;
  let completionTokens = 0;
  let cachedTokens = 0;
  let sawUsage = false;
  let contentEvents = 0;
  let bytesOut = 0;
  let out: string[] = [];
  // For a stream, the first token is the first body byte: some engines send headers at once.
  let ttftMs: number | null = null;

  const onEvent = (ev: EventSourceMessage) => {
    const data = ev.data;
    // Only events with a usage object are parsed: the rest pass through as they came.
    if (data !== "[DONE]" && data.includes('"usage"') && !data.includes('"usage":null')) {
      const chunk = safeJson(data);
      if (isRecord(chunk) && isRecord(chunk.usage)) {
        const u = readUsage(chunk);
        promptTokens = u.promptTokens;
        completionTokens = u.completionTokens;
        cachedTokens = u.cachedTokens;
        sawUsage = true;
        if (!opts.clientWantsUsage) {
          const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
          if (choices.length === 0) return;
          delete chunk.usage;
          out.push(`data: ${JSON.stringify(chunk)}\n\n`);
          contentEvents++;
          return;
        }
      }
    }
    if (data === "[DONE]") {
      out.push("data: [DONE]\n\n");
      return;
    }
    contentEvents++;
    // With include_usage every chunk carries `"usage":null`; a client that did not ask gets none.
    const shown = opts.clientWantsUsage
      ? data
      : data.includes(',"usage":null')
      ? data.replace(',"usage":null', "")
      : data.replace(nullUsage, "");
    // A data field of several lines goes out as several `data:` lines, as it came.
    const lines = shown.includes("\n") ? shown.replaceAll("\n", "\ndata: ") : shown;
    out.push(ev.event ? `event: ${ev.event}\ndata: ${lines}\n\n` : `data: ${lines}\n\n`);
  };
  const parser = createParser({ onEvent });
  // Fast path: the whole events of one read pass on as text, counted but not parsed; only a read
  // holding a usage object, or anything but one-line `data:` events, goes through the full parser.
  let pending = "";
  const feed = (text: string) => {
    let complete: string;
    if (pending === "" && text.endsWith("\n\n") && !text.includes("\r")) {
      // Nearly every read is whole events: nothing to join or cut.
      complete = text;
    } else {
      pending += text;
      if (pending.includes("\r")) pending = pending.replace(/\r\n?/g, "\n");
      const cut = pending.lastIndexOf("\n\n");
      if (cut < 0) return;
      complete = pending.slice(0, cut + 2);
      pending = pending.slice(cut + 2);
    }
    const n = countDataEvents(complete);
    if (n < 0 || usageObject.test(complete)) {
      parser.feed(complete);
      return;
    }
    contentEvents += n;
    if (!opts.clientWantsUsage && complete.includes('"usage":null')) {
      complete = complete.replace(nullUsageAnywhere, "");
    }
    out.push(complete);
  };
  const done = (status: number) => {
    clearTimeout(idleTimer);
    opts.finish({
      status,
      promptTokens,
      // Without a usage report, each content event is about one token.
      completionTokens: sawUsage ? completionTokens : contentEvents,
      cachedTokens,
      ttftMs,
      bytesOut,
    });
  };
  const send = (ctrl: ReadableStreamDefaultController<Uint8Array>) => {
    const bytes = encoder.encode(out.join(""));
    bytesOut += bytes.byteLength;
    ctrl.enqueue(bytes);
    out = [];
  };

  // One timer per idle period, not one per read: it re-arms itself for what is left of the period.
  let lastByteAt = performance.now();
  let stalled = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const watch = (ms: number) => {
    idleTimer = setTimeout(() => {
      const idle = performance.now() - lastByteAt;
      if (idle < opts.idleTimeoutMs) return watch(opts.idleTimeoutMs - idle);
      stalled = true;
      opts.abort();
      answer.cancel();
    }, ms);
  };
  watch(opts.idleTimeoutMs);
  const stallEnd = () => {
    const err = new AppError("engine_stalled", {
      model: opts.model,
      seconds: Math.round(opts.idleTimeoutMs / 1000),
    });
    return `data: ${JSON.stringify(errorBody(err))}\n\ndata: [DONE]\n\n`;
  };

  const stream = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      for (;;) {
        let piece: Uint8Array | null;
        try {
          piece = await answer.read();
        } catch {
          if (stalled) {
            out.push(stallEnd());
            send(ctrl);
            done(504);
            ctrl.close();
            return;
          }
          // The client's disconnect aborts the engine request, which can fail this read before
          // the response's own cancel arrives: that is still the client leaving, not the engine.
          if (opts.clientGone()) {
            done(499);
            ctrl.error(new Error("the client went away"));
            return;
          }
          done(502);
          ctrl.error(new Error("the engine stopped mid-answer"));
          return;
        }
        if (piece === null) {
          feed(decoder.decode());
          if (pending) parser.feed(pending + "\n\n");
          if (stalled) out.push(stallEnd());
          if (out.length) send(ctrl);
          done(stalled ? 504 : 200);
          ctrl.close();
          return;
        }
        lastByteAt = performance.now();
        ttftMs ??= Math.round(lastByteAt - opts.started);
        // Decoded at once: the bytes are the connection's, read into again by the next read.
        feed(decoder.decode(piece, { stream: true }));
        if (out.length === 0) continue;
        // All events of one engine read go out as one write.
        send(ctrl);
        return;
      }
    },
    cancel() {
      done(499);
      opts.abort();
      answer.cancel();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      ...opts.headers,
    },
  });
}

/**
 * How many content events `text` (whole events) holds when every line of it is a `data:` field,
 * the closing `[DONE]` not counted; -1 when anything else is there (a comment, an `event:` or `id:`
 * field), which only the full parser reads right.
 */
export function countDataEvents(text: string): number {
  let n = 0;
  for (let at = 0; at < text.length;) {
    if (!text.startsWith("data: ", at)) return -1;
    const end = text.indexOf("\n", at);
    if (end < 0) return -1;
    if (text.charCodeAt(end + 1) === 10) {
      // The event ends here.
      if (!text.startsWith("data: [DONE]\n", at)) n++;
      at = end + 2;
    } else {
      at = end + 1;
    }
  }
  return n;
}

/**
 * Tokens from an answer's usage. Cached prompt tokens come from OpenAI's
 * `usage.prompt_tokens_details.cached_tokens`, else llama.cpp's `timings.cache_n` or
 * `tokens_cached`.
 */
function readUsage(
  v: unknown,
): { promptTokens: number; completionTokens: number; cachedTokens: number } {
  const usage = isRecord(v) && isRecord(v.usage) ? v.usage : {};
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : undefined;
  const timings = isRecord(v) && isRecord(v.timings) ? v.timings : undefined;
  const cached = details?.cached_tokens ?? timings?.cache_n ??
    (isRecord(v) ? v.tokens_cached : undefined);
  return {
    promptTokens: n(usage.prompt_tokens),
    completionTokens: n(usage.completion_tokens),
    cachedTokens: n(cached),
  };
}

const isOk = (status: number) => status >= 200 && status < 300;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
