/**
 * Undoes HTTP/1.1 chunked transfer coding as bytes arrive, in whatever pieces they arrive. The
 * data of one piece is gathered in place at its front (framing only ever removes bytes), so a
 * streamed token costs no copy and no allocation.
 */

export interface ChunkedPiece {
  /** The body bytes in the piece: a view of the piece itself. */
  data: Uint8Array;
  /** The last chunk and the trailers have been read. */
  ended: boolean;
  /** Bytes after the end of the body (a second answer nobody asked for). */
  extra: boolean;
}

export interface ChunkedDecoder {
  decode(piece: Uint8Array): ChunkedPiece;
}

const enum State {
  Size,
  Extension,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  TrailerLine,
  TrailerLf,
  FinalLf,
  Done,
}

/** The longest chunk size accepted: 2^40, far beyond any answer, well inside a safe integer. */
const maxSizeDigits = 10;
/**
 * Chunk extensions and trailers are no part of the body, so no body limit counts them: without
 * bounds of their own, a peer could send them for ever (Node's CVE-2024-22019). Nothing llmgw
 * talks to uses either beyond a few bytes.
 */
const maxExtensionBytes = 4 * 1024;
const maxTrailerBytes = 16 * 1024;

export function chunkedDecoder(): ChunkedDecoder {
  let state = State.Size;
  let size = 0;
  let digits = 0;
  let left = 0;
  let extension = 0;
  let trailers = 0;
  return {
    decode(piece) {
      let out = 0;
      let i = 0;
      const n = piece.byteLength;
      while (i < n) {
        if (state === State.Data) {
          const take = Math.min(left, n - i);
          if (out !== i) piece.copyWithin(out, i, i + take);
          out += take;
          i += take;
          left -= take;
          if (left === 0) state = State.DataCr;
          continue;
        }
        const b = piece[i++]!;
        switch (state) {
          case State.Size: {
            const d = hexValue(b);
            if (d >= 0) {
              if (++digits > maxSizeDigits) throw new Error("a chunk size is too long");
              size = size * 16 + d;
            } else if (digits > 0 && (b === 0x3b || b === 0x20 || b === 0x09)) {
              state = State.Extension;
            } else if (digits > 0 && b === 0x0d) {
              state = State.SizeLf;
            } else {
              throw new Error("a chunk size is malformed");
            }
            break;
          }
          case State.Extension:
            if (b === 0x0d) state = State.SizeLf;
            else if (++extension > maxExtensionBytes) {
              throw new Error("a chunk extension is too long");
            }
            break;
          case State.SizeLf:
            expect(b, 0x0a);
            if (size === 0) {
              state = State.TrailerStart;
            } else {
              left = size;
              state = State.Data;
            }
            size = 0;
            digits = 0;
            extension = 0;
            break;
          case State.DataCr:
            expect(b, 0x0d);
            state = State.DataLf;
            break;
          case State.DataLf:
            expect(b, 0x0a);
            state = State.Size;
            break;
          case State.TrailerStart:
            state = b === 0x0d ? State.FinalLf : State.TrailerLine;
            break;
          case State.TrailerLine:
            if (b === 0x0d) state = State.TrailerLf;
            else if (++trailers > maxTrailerBytes) throw new Error("the trailers are too long");
            break;
          case State.TrailerLf:
            expect(b, 0x0a);
            state = State.TrailerStart;
            break;
          case State.FinalLf:
            expect(b, 0x0a);
            state = State.Done;
            break;
          case State.Done:
            return { data: piece.subarray(0, out), ended: true, extra: true };
        }
      }
      return { data: piece.subarray(0, out), ended: state === State.Done, extra: false };
    },
  };
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

function expect(b: number, want: number): void {
  if (b !== want) throw new Error("chunk framing is malformed");
}
