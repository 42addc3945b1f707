/**
 * The streamed half of the relay: engine events pass to the client as they arrive, all events of
 * one engine read in one write, with the usage chunk and `"usage":null` fields withheld from a
 * client that did not ask for them; usage is read on the way; a stalled engine is cut with a
 * proper end.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errorBody } from "../errors.ts";
import { AppError } from "../../core/errors.ts";
import { isRecord, readUsage, safeJson } from "./json_fields.ts";
import type { Finished } from "./relay.ts";
import type { UpstreamAnswer } from "./upstream/upstream.ts";

const encoder = new TextEncoder();
const nullUsage = /,\s*"usage"\s*:\s*null|"usage"\s*:\s*null\s*,?/;
const nullUsageAnywhere = /,"usage":null|"usage":null,?/g;
const usageObject = /"usage":\s*\{/;

export function relayStream(
  answer: UpstreamAnswer,
  opts: {
    /** The answer's first piece, read before the client was answered (valid until the next read). */
    first: Uint8Array;
    /** When that first piece came, in ms from `started`. */
    ttftMs: number;
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
      promptUnreported: !sawUsage,
      ttftMs: opts.ttftMs,
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
  // Only time spent waiting on the engine counts: while the client is slow to take what was sent,
  // nothing is read (the stream is pulled), and that pause is not the engine's.
  let readingSince: number | null = null;
  let stalled = false;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const watch = (ms: number) => {
    idleTimer = setTimeout(() => {
      if (readingSince === null) return watch(opts.idleTimeoutMs);
      const idle = performance.now() - readingSince;
      if (idle < opts.idleTimeoutMs) return watch(opts.idleTimeoutMs - idle);
      stalled = true;
      opts.abort();
      answer.cancel();
    }, ms);
  };
  watch(opts.idleTimeoutMs);
  const errorEvent = (err: AppError) => `data: ${JSON.stringify(errorBody(err))}\n\n`;
  // An engine that stalls or dies mid-answer: the client hears why, in the API's error shape (an
  // SDK raises it as an API error, where a cut connection is only "terminated"), and gets no
  // [DONE], so the answer cannot pass for a whole one.
  const stallEnd = () =>
    errorEvent(
      new AppError("engine_stalled", {
        model: opts.model,
        seconds: Math.round(opts.idleTimeoutMs / 1000),
      }),
    );
  const brokenEnd = () =>
    errorEvent(
      new AppError("engine_error", {
        model: opts.model,
        detail: "it stopped in the middle of the answer",
      }),
    );

  // Taken in at once: the piece is the connection's buffer, which the next read fills again.
  feed(decoder.decode(opts.first, { stream: true }));

  const stream = new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      // The first piece's events, the first time.
      if (out.length) return send(ctrl);
      for (;;) {
        let piece: Uint8Array | null;
        try {
          readingSince = performance.now();
          piece = await answer.read();
          readingSince = null;
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
          // What was whole went out with its read; a part-event left over is dropped.
          out.push(brokenEnd());
          send(ctrl);
          done(502);
          ctrl.close();
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
