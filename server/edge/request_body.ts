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
  /** The next request's bytes may already be buffered after a chunked body's end: do not reuse. */
  readonly reusable: boolean;
}

const pieceBytes = 64 * 1024;
const continueLine = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");

export function requestBody(
  io: ConnBuffer,
  framing: BodyFraming,
  opts: { expectContinue: boolean; rate: BodyRate; onComplete(): void },
): RequestBody {
  if (framing.kind === "none") return { stream: null, complete: true, reusable: true };
  if (framing.kind === "length" && io.buffered >= framing.length) {
    // A view, not a copy: the Request copies a typed array it is given (WebIDL's BufferSource).
    const bytes = io.view().subarray(0, framing.length);
    io.consume(framing.length);
    return { stream: bytes, complete: true, reusable: true };
  }
  let complete = false;
  let reusable = true;
  let started = 0;
  let received = 0;
  let continueSent = !opts.expectContinue;
  const readMore = async (): Promise<Uint8Array | null> => {
    if (!continueSent) {
      continueSent = true;
      if (io.buffered === 0) await io.write(continueLine);
    }
    const { rate } = opts;
    if (started === 0) started = performance.now();
    if (rate.minBytesPerSecond > 0 && io.buffered === 0) {
      const deadline = started + rate.graceMs + (received / rate.minBytesPerSecond) * 1000;
      rate.arm(Math.max(0, deadline - performance.now()));
    }
    try {
      const piece = await io.take(
        framing.kind === "length" ? Math.min(pieceBytes, left) : pieceBytes,
      );
      if (piece) received += piece.byteLength;
      return piece;
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
  });
  const pullPiece = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    for (;;) {
      const piece = await readMore();
      if (piece === null) throw new Deno.errors.UnexpectedEof("the client closed mid-body");
      if (!decoder) {
        left -= piece.byteLength;
        controller.enqueue(piece);
        if (left === 0) {
          complete = true;
          controller.close();
          opts.onComplete();
        }
        return;
      }
      const out = decoder.decode(piece);
      if (out.extra) reusable = false;
      if (out.data.byteLength) controller.enqueue(out.data);
      if (out.ended) {
        complete = true;
        controller.close();
        opts.onComplete();
        return;
      }
      if (out.data.byteLength) return;
    }
  };
  return {
    stream,
    get complete() {
      return complete;
    },
    get reusable() {
      return reusable;
    },
  };
}
