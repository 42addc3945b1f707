/**
 * The streamed half of the relay: engine events pass to the client as they arrive, all events of
 * one engine read in one write, with the usage chunk and `"usage":null` fields withheld from a
 * client that did not ask for them; usage is read on the way; a stalled engine is cut with a
 * proper end.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { errorBody } from "../errors.ts";
import { AppError } from "../../core/errors.ts";
import { isRecord, readUsage, safeJson, usageObjectOf } from "./json_fields.ts";
import type { Finished } from "./relay.ts";
import type { UpstreamAnswer } from "./upstream/upstream.ts";
import type { StreamGuard } from "../guard/answer_guard.ts";
import type { AnswerKeeper } from "../cache/cache_step.ts";

const encoder = new TextEncoder();
const nullUsage = /,\s*"usage"\s*:\s*null|"usage"\s*:\s*null\s*,?/;
const nullUsageAnywhere = /,"usage":null|"usage":null,?/g;
const usageObject = /"usage":\s*\{/;

export interface StreamRelayOptions {
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
  /** Output rules and restore, run on each write; a block ends the stream (status 400). */
  guard?: StreamGuard;
  /** The answer cache's keeper: given what the client was sent, when the stream ended well. */
  keep?: AnswerKeeper;
}

export function relayStream(answer: UpstreamAnswer, opts: StreamRelayOptions): Response {
  const relay = new StreamRelay(answer, opts);
  return new Response(relay.stream(), {
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
 * One stream's state. A class rather than closures: each read runs the same few methods on one
 * object, with nothing allocated per read beyond the text it passes on.
 */
class StreamRelay {
  readonly #answer: UpstreamAnswer;
  readonly #opts: StreamRelayOptions;
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  #promptTokens = 0;
  #completionTokens = 0;
  #cachedTokens = 0;
  #sawUsage = false;
  #contentEvents = 0;
  #bytesOut = 0;
  #out: string[] = [];
  /** A part-event left over from the last read, joined to the next. */
  #pending = "";
  /** When the read now waiting on the engine began; null while the client is being sent to. */
  #readingSince: number | null = null;
  #stalled = false;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** A guardrail ended the stream: closed, nothing more is read or sent. */
  #cut = false;
  /** What the client was sent, for the answer cache; undefined once past its cap (or without it). */
  #kept: string[] | undefined;
  #keptChars = 0;

  constructor(answer: UpstreamAnswer, opts: StreamRelayOptions) {
    this.#answer = answer;
    this.#opts = opts;
    this.#parser = createParser({ onEvent: (ev) => this.#onEvent(ev) });
    if (opts.keep) this.#kept = [];
    this.#watch(opts.idleTimeoutMs);
    // Taken in at once: the piece is the connection's buffer, which the next read fills again.
    this.#feed(this.#decoder.decode(opts.first, { stream: true }));
  }

  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: (ctrl) => this.#pull(ctrl),
      cancel: () => this.#cancel(),
    });
  }

  async #pull(ctrl: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    // The first piece's events, the first time.
    if (this.#out.length && await this.#sent(ctrl)) return;
    for (;;) {
      let piece: Uint8Array | null;
      try {
        this.#readingSince = performance.now();
        piece = await this.#answer.read();
        this.#readingSince = null;
      } catch {
        return this.#readFailed(ctrl);
      }
      if (piece === null) return this.#ended(ctrl);
      // Decoded at once: the bytes are the connection's, read into again by the next read.
      this.#feed(this.#decoder.decode(piece, { stream: true }));
      // All events of one engine read go out as one write.
      if (this.#out.length && await this.#sent(ctrl)) return;
    }
  }

  /**
   * What was read goes out; false when nothing did (a guardrail holds the answer whole), so the
   * pull reads on. Only a guarded stream waits here: the plain one sends at once.
   */
  #sent(ctrl: ReadableStreamDefaultController<Uint8Array>): boolean | Promise<boolean> {
    if (!this.#opts.guard) {
      this.#send(ctrl);
      return true;
    }
    return this.#sendGuarded(ctrl);
  }

  #cancel(): void {
    this.#done(499);
    this.#opts.abort();
    this.#answer.cancel();
  }

  /** The engine's stream ended: what is left goes out, then the end. */
  async #ended(ctrl: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    this.#feed(this.#decoder.decode());
    if (this.#pending) this.#parser.feed(this.#pending + "\n\n");
    if (this.#stalled) this.#out.push(this.#stallEnd());
    if (this.#out.length) await this.#sent(ctrl);
    if (!this.#cut && this.#opts.guard) this.#emit(ctrl, await this.#opts.guard.end());
    if (this.#cut) return;
    this.#done(this.#stalled ? 504 : 200);
    ctrl.close();
  }

  /** A read failed: the idle cut, the client leaving, or the engine dying mid-answer. */
  async #readFailed(ctrl: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (this.#stalled) {
      this.#out.push(this.#stallEnd());
      await this.#sent(ctrl);
      if (this.#cut) return;
      this.#done(504);
      ctrl.close();
      return;
    }
    // The client's disconnect aborts the engine request, which can fail this read before the
    // response's own cancel arrives: that is still the client leaving, not the engine.
    if (this.#opts.clientGone()) {
      this.#done(499);
      ctrl.error(new Error("the client went away"));
      return;
    }
    // What was whole went out with its read; a part-event left over is dropped.
    this.#out.push(this.#brokenEnd());
    await this.#sent(ctrl);
    if (this.#cut) return;
    this.#done(502);
    ctrl.close();
  }

  /**
   * Fast path: the whole events of one read pass on as text, counted but not parsed; only a read
   * holding a usage object, or anything but one-line `data:` events, goes through the full parser.
   */
  #feed(text: string): void {
    let complete: string;
    if (this.#pending === "" && text.endsWith("\n\n") && !text.includes("\r")) {
      // Nearly every read is whole events: nothing to join or cut.
      complete = text;
    } else {
      let pending = this.#pending + text;
      if (pending.includes("\r")) pending = pending.replace(/\r\n?/g, "\n");
      const cut = pending.lastIndexOf("\n\n");
      this.#pending = cut < 0 ? pending : pending.slice(cut + 2);
      if (cut < 0) return;
      complete = pending.slice(0, cut + 2);
    }
    const n = countDataEvents(complete);
    if (n < 0 || usageObject.test(complete)) {
      this.#parser.feed(complete);
      return;
    }
    this.#contentEvents += n;
    if (!this.#opts.clientWantsUsage && complete.includes('"usage":null')) {
      complete = complete.replace(nullUsageAnywhere, "");
    }
    this.#out.push(complete);
  }

  /** One event the full parser read. */
  #onEvent(ev: EventSourceMessage): void {
    const data = ev.data;
    if (data === "[DONE]") {
      this.#out.push("data: [DONE]\n\n");
      return;
    }
    // Only events with a usage object are parsed: the rest pass through as they came.
    if (data.includes('"usage"') && !data.includes('"usage":null') && this.#usageEvent(data)) {
      return;
    }
    this.#contentEvents++;
    // With include_usage every chunk carries `"usage":null`; a client that did not ask gets none.
    const shown = this.#opts.clientWantsUsage
      ? data
      : data.includes(',"usage":null')
      ? data.replace(',"usage":null', "")
      : data.replace(nullUsage, "");
    // A data field of several lines goes out as several `data:` lines, as it came.
    const lines = shown.includes("\n") ? shown.replaceAll("\n", "\ndata: ") : shown;
    this.#out.push(ev.event ? `event: ${ev.event}\ndata: ${lines}\n\n` : `data: ${lines}\n\n`);
  }

  /**
   * Reads the usage from an event that may carry it; true when the event was dealt with here (the
   * usage withheld from a client that did not ask), false when it passes on as it came.
   */
  #usageEvent(data: string): boolean {
    const chunk = safeJson(data);
    if (!isRecord(chunk) || !usageObjectOf(chunk)) return false;
    const u = readUsage(chunk);
    this.#promptTokens = u.promptTokens;
    this.#completionTokens = u.completionTokens;
    this.#cachedTokens = u.cachedTokens;
    this.#sawUsage = true;
    if (this.#opts.clientWantsUsage) return false;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    if (choices.length === 0) return true;
    delete chunk.usage;
    this.#out.push(`data: ${JSON.stringify(chunk)}\n\n`);
    this.#contentEvents++;
    return true;
  }

  #send(ctrl: ReadableStreamDefaultController<Uint8Array>): void {
    const text = this.#out.join("");
    this.#out = [];
    this.#enqueue(ctrl, text);
  }

  async #sendGuarded(ctrl: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> {
    const text = this.#out.join("");
    this.#out = [];
    return this.#emit(ctrl, await this.#opts.guard!.events(text));
  }

  /** What the guardrails let out; false when that was nothing. */
  #emit(
    ctrl: ReadableStreamDefaultController<Uint8Array>,
    guarded: { text: string; cut: boolean },
  ): boolean {
    if (guarded.text === "" && !guarded.cut) return false;
    this.#enqueue(ctrl, guarded.text);
    if (guarded.cut) this.#guardCut(ctrl);
    return true;
  }

  #enqueue(ctrl: ReadableStreamDefaultController<Uint8Array>, text: string): void {
    const bytes = encoder.encode(text);
    this.#bytesOut += bytes.byteLength;
    if (this.#kept) this.#keep(text);
    ctrl.enqueue(bytes);
  }

  /** A guardrail blocked the answer: its error event went out; the engine is let go. */
  #guardCut(ctrl: ReadableStreamDefaultController<Uint8Array>): void {
    this.#cut = true;
    this.#done(400);
    this.#opts.abort();
    this.#answer.cancel();
    ctrl.close();
  }

  #keep(text: string): void {
    this.#keptChars += text.length;
    if (this.#keptChars > this.#opts.keep!.maxBytes) this.#kept = undefined;
    else this.#kept!.push(text);
  }

  #done(status: number): void {
    clearTimeout(this.#idleTimer);
    // Only a whole answer with its usage is worth giving again.
    if (status === 200 && this.#kept && this.#sawUsage) {
      const usage = { promptTokens: this.#promptTokens, completionTokens: this.#completionTokens };
      this.#opts.keep!.streamed(this.#kept.join(""), usage);
    }
    this.#opts.finish({
      status,
      promptTokens: this.#promptTokens,
      // Without a usage report, each content event is about one token.
      completionTokens: this.#sawUsage ? this.#completionTokens : this.#contentEvents,
      cachedTokens: this.#cachedTokens,
      promptUnreported: !this.#sawUsage,
      ttftMs: this.#opts.ttftMs,
      bytesOut: this.#bytesOut,
    });
  }

  /**
   * One timer per idle period, not one per read: it re-arms itself for what is left of the period.
   * Only time spent waiting on the engine counts: while the client is slow to take what was sent,
   * nothing is read (the stream is pulled), and that pause is not the engine's.
   */
  #watch(ms: number): void {
    this.#idleTimer = setTimeout(() => {
      const idleTimeoutMs = this.#opts.idleTimeoutMs;
      if (this.#readingSince === null) return this.#watch(idleTimeoutMs);
      const idle = performance.now() - this.#readingSince;
      if (idle < idleTimeoutMs) return this.#watch(idleTimeoutMs - idle);
      this.#stalled = true;
      this.#opts.abort();
      this.#answer.cancel();
    }, ms);
  }

  /**
   * An engine that stalls or dies mid-answer: the client hears why, in the API's error shape (an
   * SDK raises it as an API error, where a cut connection is only "terminated"), and gets no
   * [DONE], so the answer cannot pass for a whole one.
   */
  #stallEnd(): string {
    const seconds = Math.round(this.#opts.idleTimeoutMs / 1000);
    return errorEvent(new AppError("engine_stalled", { model: this.#opts.model, seconds }));
  }

  #brokenEnd(): string {
    const detail = "it stopped in the middle of the answer";
    return errorEvent(new AppError("engine_error", { model: this.#opts.model, detail }));
  }
}

function errorEvent(err: AppError): string {
  return `data: ${JSON.stringify(errorBody(err))}\n\n`;
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
