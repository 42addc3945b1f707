/**
 * A request's body as a stream the app reads, framed by Content-Length or chunked coding, with the
 * minimum rate: past the grace, a body arriving slower than `minRate` bytes a second on average is
 * cut. Only time spent waiting on the client counts, not time the app takes between reads. A body
 * that cannot be read whole (malformed framing, the client gone or cut midway) fails the app's read
 * as the client's fault (`invalid_request`), never as the server's error.
 */
import { AppError } from "../../core/errors.ts";
import { chunkedDecoder } from "../router/upstream/chunked.ts";
import type { ConnBuffer } from "./conn_buffer.ts";
import type { BodyFraming } from "./request_head.ts";

export interface BodyRate {
  graceMs: number;
  /** Bytes a second; 0: no minimum. */
  minBytesPerSecond: number;
  /** Gives the client `ms` to send more before the connection is cut; `disarm` when it did. */
  arm(ms: number): void;
  disarm(): void;
}

export interface RequestBody {
  /**
   * The body for the Request: its bytes when the whole of it came with the head (most API calls:
   * a small JSON body in the same segments), so the app reads it without a stream's machinery.
   */
  stream: ReadableStream<Uint8Array> | Uint8Array | null;
  /** Every byte of the body has been read (the next request may follow on the connection). */
  readonly complete: boolean;
}

const pieceBytes = 64 * 1024;
const continueLine = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");

export function requestBody(
  io: ConnBuffer,
  framing: BodyFraming,
  opts: { expectContinue: boolean; rate: BodyRate; onComplete(): void },
): RequestBody {
  if (framing.kind === "none") return { stream: null, complete: true };
  if (framing.kind === "length" && io.buffered >= framing.length) {
    // A view, not a copy: the Request copies a typed array it is given (WebIDL's BufferSource).
    const bytes = io.view().subarray(0, framing.length);
    io.consume(framing.length);
    return { stream: bytes, complete: true };
  }
  let complete = false;
  let started = 0;
  let received = 0;
  let continueSent = !opts.expectContinue;
  /** Waits for bytes to be buffered; false when the client closed. */
  const arrived = async (): Promise<boolean> => {
    if (!continueSent) {
      continueSent = true;
      if (io.buffered === 0) await io.write(continueLine);
    }
    if (io.buffered > 0) return true;
    const { rate } = opts;
    if (started === 0) started = performance.now();
    if (rate.minBytesPerSecond > 0) {
      const deadline = started + rate.graceMs + (received / rate.minBytesPerSecond) * 1000;
      rate.arm(Math.max(0, deadline - performance.now()));
    }
    try {
      const n = await io.fill();
      if (n !== null) received += n;
      return n !== null;
    } finally {
      rate.disarm();
    }
  };
  let left = framing.kind === "length" ? framing.length : 0;
  const decoder = framing.kind === "chunked" ? chunkedDecoder() : undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        await pullPiece(controller);
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw new AppError("invalid_request", { detail: `the body: ${(e as Error).message}` });
      }
    },
  }, {
    // Nothing is read (and no 100 Continue sent) until the app reads: an answer made without the
    // body (401, 413) goes out before the client sends it.
    highWaterMark: 0,
  });
  const ended = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    complete = true;
    controller.close();
    opts.onComplete();
  };
  const pullPiece = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (;;) {
      if (!await arrived()) throw new Deno.errors.UnexpectedEof("the client closed mid-body");
      if (!decoder) {
        const piece = (await io.take(Math.min(pieceBytes, left)))!;
        left -= piece.byteLength;
        controller.enqueue(piece);
        if (left === 0) ended(controller);
        return;
      }
      // A copy, decoded in place; only the body's own bytes are consumed: what follows its end is
      // the next request's.
      const view = io.view();
      const out = decoder.decode(view.slice(0, Math.min(pieceBytes, view.byteLength)));
      io.consume(out.used);
      if (out.data.byteLength) controller.enqueue(out.data);
      if (out.ended) return ended(controller);
      if (out.data.byteLength) return;
    }
  };
  return {
    stream,
    get complete() {
      return complete;
    },
  };
}
