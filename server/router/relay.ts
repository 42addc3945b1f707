/**
 * Relays one OpenAI-style request to an engine replica and the answer back, as it arrives.
 * What the client sent passes through untouched except that a streamed request always asks
 * the engine for usage (so usage is always known) and the usage chunk is withheld from a client
 * that did not ask for it. When the request ends, however it ends, `onDone` gets one outcome.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Clock } from "../../core/clock.ts";
import { AppError } from "../errors.ts";
import type { Replica } from "./replicas.ts";

export interface RelayOutcome {
  /** What the client was sent; 499 when the client went away before the end. */
  status: number;
  promptTokens: number;
  completionTokens: number;
  /** Time to the first byte of the answer; null when none arrived. */
  ttftMs: number | null;
  latencyMs: number;
}

export interface RelayRequest {
  replica: Replica;
  /** The engine path, e.g. `/v1/chat/completions`. */
  path: string;
  body: Record<string, unknown>;
  /** Aborted when the client disconnects. */
  clientSignal: AbortSignal;
  firstByteTimeoutMs: number;
  clock: Clock;
  onDone: (outcome: RelayOutcome) => void;
}

const encoder = new TextEncoder();
const nullUsage = /,\s*"usage"\s*:\s*null|"usage"\s*:\s*null\s*,?/;

export async function relay(req: RelayRequest): Promise<Response> {
  const { replica, body, clock } = req;
  const started = clock.now();
  const stream = body.stream === true;
  const clientWantsUsage = stream && isRecord(body.stream_options) &&
    body.stream_options.include_usage === true;
  const upstreamBody = stream
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

  let finished = false;
  const finish = (o: Omit<RelayOutcome, "latencyMs">) => {
    if (finished) return;
    finished = true;
    clearTimeout(firstByteTimer);
    req.clientSignal.removeEventListener("abort", onClientAbort);
    replica.inFlight--;
    req.onDone({ ...o, latencyMs: clock.now() - started });
  };

  replica.inFlight++;
  let upstream: Response;
  try {
    upstream = await fetch(replica.baseUrl + req.path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${replica.apiKey}`,
        accept: stream ? "text/event-stream" : "application/json",
      },
      body: JSON.stringify(upstreamBody),
      signal: upstreamAbort.signal,
    });
  } catch (e) {
    const clientGone = req.clientSignal.aborted;
    finish({ status: clientGone ? 499 : 502, promptTokens: 0, completionTokens: 0, ttftMs: null });
    if (clientGone) return new Response(null, { status: 499 });
    const detail = (e as Error).name === "TimeoutError"
      ? "no answer in time"
      : "the engine could not be reached";
    throw new AppError("engine_error", { model: replica.model, detail });
  }
  const ttftMs = clock.now() - started;
  clearTimeout(firstByteTimer);

  const isEventStream = (upstream.headers.get("content-type") ?? "").includes("text/event-stream");
  if (!upstream.ok || !isEventStream || !upstream.body) {
    return await relayWhole(upstream, replica.model, ttftMs, finish);
  }
  return relayStream(upstream.body, {
    clientWantsUsage,
    ttftMs,
    abort: () => upstreamAbort.abort(),
    finish,
  });
}

/** A JSON answer (or an engine's error) is passed on as it came, after reading its usage. */
async function relayWhole(
  upstream: Response,
  model: string,
  ttftMs: number,
  finish: (o: Omit<RelayOutcome, "latencyMs">) => void,
): Promise<Response> {
  let text: string;
  try {
    text = await upstream.text();
  } catch {
    finish({ status: 499, promptTokens: 0, completionTokens: 0, ttftMs });
    return new Response(null, { status: 499 });
  }
  const usage = readUsage(safeJson(text));
  finish({ status: upstream.status, ...usage, ttftMs });
  const contentType = upstream.headers.get("content-type") ?? "application/json";
  if (!upstream.ok && !contentType.includes("json")) {
    // An engine that fails with a non-JSON body still answers the client in OpenAI's shape.
    throw new AppError("engine_error", { model, detail: `status ${upstream.status}` });
  }
  return new Response(text, { status: upstream.status, headers: { "content-type": contentType } });
}

function relayStream(
  body: ReadableStream<Uint8Array>,
  opts: {
    clientWantsUsage: boolean;
    ttftMs: number;
    abort: () => void;
    finish: (o: Omit<RelayOutcome, "latencyMs">) => void;
  },
): Response {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let promptTokens = 0;
  let completionTokens = 0;
  let sawUsage = false;
  let contentEvents = 0;
  let out: string[] = [];

  const onEvent = (ev: EventSourceMessage) => {
    const data = ev.data;
    // Only events that mention usage are parsed: the rest pass through as they came.
    if (data !== "[DONE]" && data.includes('"usage"')) {
      const chunk = safeJson(data);
      if (isRecord(chunk) && isRecord(chunk.usage)) {
        const u = readUsage(chunk);
        promptTokens = u.promptTokens;
        completionTokens = u.completionTokens;
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
    const shown = opts.clientWantsUsage ? data : data.replace(nullUsage, "");
    out.push(ev.event ? `event: ${ev.event}\ndata: ${shown}\n\n` : `data: ${shown}\n\n`);
  };
  const parser = createParser({ onEvent });
  const done = (status: number) =>
    opts.finish({
      status,
      promptTokens,
      // Without a usage report, each content event is about one token.
      completionTokens: sawUsage ? completionTokens : contentEvents,
      ttftMs: opts.ttftMs,
    });

  const stream = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch {
          done(502);
          ctrl.error(new Error("the engine stopped mid-answer"));
          return;
        }
        if (chunk.done) {
          parser.feed(decoder.decode());
          if (out.length) ctrl.enqueue(encoder.encode(out.join("")));
          done(200);
          ctrl.close();
          return;
        }
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        if (out.length === 0) continue;
        // All events of one engine read go out as one write.
        ctrl.enqueue(encoder.encode(out.join("")));
        out = [];
        return;
      }
    },
    cancel() {
      done(499);
      opts.abort();
      reader.cancel().catch(() => {});
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}

function readUsage(v: unknown): { promptTokens: number; completionTokens: number } {
  const usage = isRecord(v) && isRecord(v.usage) ? v.usage : {};
  const n = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? x : 0);
  return { promptTokens: n(usage.prompt_tokens), completionTokens: n(usage.completion_tokens) };
}

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
