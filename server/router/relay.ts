/**
 * Relays one OpenAI-style request to one replica and the answer back, as it arrives. What the
 * client sent passes through untouched except that a streamed request always asks the engine for
 * usage (so usage is always known) and the usage chunk is withheld from a client that did not ask.
 *
 * Either the request failed before anything reached the client (`failed`: dispatch may try
 * elsewhere; `onDone` is not called) or an answer is under way (`answered`: `onDone` gets one
 * outcome when it ends, however it ends). Nothing is retried once the answer has started.
 */
import { AppError } from "../../core/errors.ts";
import { isRecord, readUsage, safeJson } from "./json_fields.ts";
import { relayStream } from "./relay_stream.ts";
import type { GuardPass } from "../guard/guard_pass.ts";
import { askAnswerServices, guardWholeAnswer, StreamGuard } from "../guard/answer_guard.ts";
import { judgeAnswer } from "../guard/judge/judge_step.ts";
import type { Replica } from "./replicas.ts";
import type { Upstream, UpstreamAnswer } from "./upstream/upstream.ts";
import type { AnswerKeeper } from "../cache/cache_step.ts";

export interface RelayOutcome {
  /** What the client was sent; 499 when the client went away first, 504 for a stalled engine. */
  status: number;
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the engine's cache, within promptTokens. */
  cachedTokens: number;
  /**
   * The answer started but ended with no usage report (a broken, stalled or cut stream): the
   * engine read the prompt, so the caller records its own estimate of it, marked as one.
   */
  promptUnreported: boolean;
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
  /** Sent from the engine's root instead, when given (TEI's `/rerank`). */
  rootPath?: string;
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
  /** The request's guardrails, when a policy checks answers or restores values in them. */
  guard?: GuardPass;
  /** The answer cache's keeper, for an answer it may give again: told of an answer that ended well. */
  keep?: AnswerKeeper;
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
/** Durations come from a monotonic timer: a wall clock can jump. */
const elapsed = (since: number) => Math.round(performance.now() - since);

export async function relay(req: RelayRequest): Promise<RelayResult> {
  const { replica, body } = req;
  const started = performance.now();
  const stream = body.stream === true;
  // A Responses stream always carries its usage (in response.completed), and has no
  // stream_options.include_usage to ask for it: it goes on as it came.
  const clientWantsUsage = stream && (req.path === "/responses" ||
    isRecord(body.stream_options) && body.stream_options.include_usage === true);

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

  // Whatever fails before the client has been sent anything may go to another replica.
  const beforeFirstByte = (e: unknown, detail: string): RelayResult => {
    if (req.clientSignal.aborted) {
      finish({ ...noTokens, status: 499, ttftMs: null, bytesOut: 0 });
      return { kind: "answered", response: new Response(null, { status: 499 }), ttftMs: null };
    }
    detach();
    const timedOut = (e as Error | null)?.name === "TimeoutError";
    if (timedOut) {
      // Waiting as long again elsewhere would double what the client already waited: no retry.
      finish({ ...noTokens, status: 502, ttftMs: null, bytesOut: 0 });
      throw new AppError("engine_error", { model: replica.model, detail: "no answer in time" });
    }
    return { kind: "failed", status: 0, detail };
  };

  let upstream: UpstreamAnswer;
  try {
    upstream = await req.upstream.post({
      url: req.rootPath !== undefined ? replica.baseUrl + req.rootPath : replica.apiBase + req.path,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${replica.apiKey}`,
        accept: stream ? "text/event-stream" : "application/json",
      },
      body: upstreamBytes(body, stream && !clientWantsUsage, req.rawBody),
      signal: upstreamAbort.signal,
    });
  } catch (e) {
    return beforeFirstByte(e, "the engine could not be reached");
  }
  const isEventStream = (upstream.header("content-type") ?? "").includes("text/event-stream");
  const streamed = isOk(upstream.status) && isEventStream;
  // A stream is answered once its first piece is in, not at its headers (engines send those at
  // once): an engine that dies in the prompt's prefill, or closes the connection before its first
  // token, has sent the client nothing yet, so another replica can still take the request.
  let first: Uint8Array | null = null;
  if (streamed) {
    try {
      first = await upstream.read();
    } catch (e) {
      upstream.cancel();
      return beforeFirstByte(e, "the engine stopped before its first token");
    }
    if (first === null) {
      return beforeFirstByte(null, "the engine ended the stream with nothing in it");
    }
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
  if (!streamed) {
    // Read whole before answering: an engine that breaks off mid-body has sent the client nothing.
    let text: string;
    try {
      text = await upstream.text();
    } catch (e) {
      upstream.cancel();
      return beforeFirstByte(e, "the engine's answer broke off before its end");
    }
    if (req.guard && isOk(upstream.status)) {
      await askAnswerServices(req.guard, text);
      const g = guardWholeAnswer(req.guard, text);
      if (!g.blocked) await judgeAnswer(req.guard, text);
      if (req.guard.blocked) {
        const status = req.guard.blocked.fail === "closed" ? 503 : 400;
        finish({ ...noTokens, ...readUsage(safeJson(text)), status, ttftMs, bytesOut: 0 });
        throw req.guard.blockError();
      }
      text = g.text;
    }
    const response = answerWhole(text, upstream, replica.model, ttftMs, finish, headers, req.keep);
    return { kind: "answered", response, ttftMs };
  }
  const response = relayStream(upstream, {
    first: first!,
    ttftMs,
    clientWantsUsage,
    started,
    idleTimeoutMs: req.idleTimeoutMs,
    model: replica.model,
    abort: () => upstreamAbort.abort(),
    clientGone: () => req.clientSignal.aborted,
    finish,
    headers,
    ...(req.guard ? { guard: new StreamGuard(req.guard) } : {}),
    ...(req.keep ? { keep: req.keep } : {}),
  });
  return { kind: "answered", response, ttftMs };
}

const noTokens = { promptTokens: 0, completionTokens: 0, cachedTokens: 0, promptUnreported: false };
const usageOption = encoder.encode(',"stream_options":{"include_usage":true}');
const closingBrace = 0x7d;

/**
 * What goes to the engine: the client's own bytes when nothing changes, or when the only change
 * is the usage option of a body that has no `stream_options` (appended before its closing brace);
 * otherwise the body written anew. A long prompt costs as much to write as to read.
 */
function upstreamBytes(
  body: Record<string, unknown>,
  askUsage: boolean,
  raw: Uint8Array<ArrayBuffer> | undefined,
): Uint8Array<ArrayBuffer> {
  if (raw && !askUsage) return raw;
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
  const sent = askUsage
    ? {
      ...body,
      stream_options: {
        ...(isRecord(body.stream_options) ? body.stream_options : {}),
        include_usage: true,
      },
    }
    : body;
  return encoder.encode(JSON.stringify(sent));
}

/** An outcome before the relay adds its latency. */
export type Finished = Omit<RelayOutcome, "latencyMs">;

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
function answerWhole(
  text: string,
  upstream: UpstreamAnswer,
  model: string,
  ttftMs: number,
  finish: (o: Finished) => void,
  headers: Record<string, string>,
  keep: AnswerKeeper | undefined,
): Response {
  const usage = readUsage(safeJson(text));
  const contentType = upstream.header("content-type") ?? "application/json";
  if (!isOk(upstream.status) && !contentType.includes("json")) {
    finish({ status: upstream.status, ...usage, promptUnreported: false, ttftMs, bytesOut: 0 });
    // An engine that fails with a non-JSON body still answers the client in OpenAI's shape.
    throw new AppError("engine_error", { model, detail: `status ${upstream.status}` });
  }
  // Bytes, not the string: the server writes them in one go, and their length is bytes_out.
  const bytes = encoder.encode(text);
  finish({
    status: upstream.status,
    ...usage,
    promptUnreported: false,
    ttftMs,
    bytesOut: bytes.byteLength,
  });
  if (keep && upstream.status === 200 && bytes.byteLength <= keep.maxBytes) {
    keep.whole(bytes, contentType, usage);
  }
  return new Response(bytes, {
    status: upstream.status,
    // Declared, so the listener writes the bytes without a stream's machinery.
    headers: {
      "content-type": contentType,
      "content-length": String(bytes.byteLength),
      ...headers,
    },
  });
}

const isOk = (status: number) => status >= 200 && status < 300;
