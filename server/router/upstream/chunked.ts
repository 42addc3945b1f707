/**
 * Undoes HTTP/1.1 chunked transfer coding as bytes arrive, in whatever pieces they arrive, strictly
 * (RFC 9112 §7.1): lines end in CRLF only, an extension is `;name[=token|quoted-string]`, a trailer
 * is a field line under the header's rules. Where a lenient reader and a proxy in front would
 * disagree on where a body ends (a bare LF, an extension swallowing one, a "trailer" that is the
 * next request), the body is refused instead. Used both ways: clients' request bodies at the edge
 * and engines' answers. The data of one piece is gathered in place at its front (framing only ever
 * removes bytes), so a streamed token costs no copy and no allocation.
 */

export interface ChunkedPiece {
  /** The body bytes in the piece: a view of the piece itself. */
  data: Uint8Array;
  /** The last chunk and the trailers have been read. */
  ended: boolean;
  /** Bytes after the end of the body (a second answer nobody asked for, or the next request). */
  extra: boolean;
  /** How many of the piece's bytes belong to the body's framing; the rest follow the body. */
  used: number;
}

export interface ChunkedDecoder {
  decode(piece: Uint8Array): ChunkedPiece;
}

const enum State {
  Size,
  /** Whitespace after the size: only an extension may follow. */
  SizeWs,
  ExtBeforeName,
  ExtName,
  ExtAfterName,
  ExtBeforeValue,
  ExtToken,
  ExtQuoted,
  ExtQuotedPair,
  ExtAfterQuoted,
  /** Whitespace after a value: only another extension may follow. */
  ExtAfterValueWs,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  TrailerName,
  TrailerValue,
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

/** Byte classes, looked up rather than compared in turn: a token char, a field value's, qdtext. */
const tokenChar = 1;
const valueChar = 2;
const quotedChar = 4;
const classes = new Uint8Array(256);
for (let b = 0x21; b <= 0xff; b++) {
  if (b === 0x7f) continue;
  // VCHAR and obs-text: what a field value holds besides its spaces and tabs.
  classes[b]! |= valueChar;
  if (b !== 0x22 && b !== 0x5c) classes[b]! |= quotedChar;
}
for (const c of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  classes[c.charCodeAt(0)]! |= tokenChar;
}
classes[0x20]! |= quotedChar;
classes[0x09]! |= quotedChar;

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HTAB = 0x09;
const SEMI = 0x3b;
const EQUALS = 0x3d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

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
        if (state === State.Done) {
          return { data: piece.subarray(0, out), ended: true, extra: true, used: i };
        }
        const b = piece[i++]!;
        if (state >= State.SizeWs && state <= State.ExtAfterValueWs) {
          if (++extension > maxExtensionBytes) throw new Error("a chunk extension is too long");
          state = extensionStep(state, b);
          continue;
        }
        if (state >= State.TrailerStart && state <= State.TrailerLf) {
          if (++trailers > maxTrailerBytes) throw new Error("the trailers are too long");
        }
        switch (state) {
          case State.Size: {
            const d = hexValue(b);
            if (d >= 0) {
              if (++digits > maxSizeDigits) throw new Error("a chunk size is too long");
              size = size * 16 + d;
            } else if (digits === 0) {
              throw new Error("a chunk size is malformed");
            } else if (b === SEMI) {
              state = State.ExtBeforeName;
            } else if (b === SP || b === HTAB) {
              state = State.SizeWs;
            } else if (b === CR) {
              state = State.SizeLf;
            } else {
              throw new Error("a chunk size is malformed");
            }
            break;
          }
          case State.SizeLf:
            expect(b, LF);
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
            expect(b, CR);
            state = State.DataLf;
            break;
          case State.DataLf:
            expect(b, LF);
            state = State.Size;
            break;
          case State.TrailerStart:
            // A field name starts the line, or the blank line ends the message: not a space
            // (obs-fold), not a colon, not a bare LF.
            if (b === CR) state = State.FinalLf;
            else if (classes[b]! & tokenChar) state = State.TrailerName;
            else throw new Error("a trailer line is malformed");
            break;
          case State.TrailerName:
            if (b === COLON) state = State.TrailerValue;
            else if (!(classes[b]! & tokenChar)) throw new Error("a trailer name is malformed");
            break;
          case State.TrailerValue:
            if (b === CR) state = State.TrailerLf;
            else if (!(classes[b]! & valueChar) && b !== SP && b !== HTAB) {
              throw new Error("a trailer value is malformed");
            }
            break;
          case State.TrailerLf:
            expect(b, LF);
            state = State.TrailerStart;
            break;
          case State.FinalLf:
            expect(b, LF);
            state = State.Done;
            break;
        }
      }
      const ended = state === State.Done;
      return { data: piece.subarray(0, out), ended, extra: false, used: n };
    },
  };
}

/**
 * The state after byte `b` of a chunk extension: `*( BWS ";" BWS name [ BWS "=" BWS value ] )`,
 * value a token or a quoted string. CR ends the line only where the grammar can end.
 */
function extensionStep(state: State, b: number): State {
  const ws = b === SP || b === HTAB;
  const token = (classes[b]! & tokenChar) !== 0;
  switch (state) {
    case State.SizeWs:
      if (ws) return state;
      if (b === SEMI) return State.ExtBeforeName;
      break;
    case State.ExtBeforeName:
      if (ws) return state;
      if (token) return State.ExtName;
      break;
    case State.ExtName:
      if (token) return state;
      if (b === CR) return State.SizeLf;
      if (b === SEMI) return State.ExtBeforeName;
      if (b === EQUALS) return State.ExtBeforeValue;
      if (ws) return State.ExtAfterName;
      break;
    case State.ExtAfterName:
      if (ws) return state;
      if (b === SEMI) return State.ExtBeforeName;
      if (b === EQUALS) return State.ExtBeforeValue;
      break;
    case State.ExtBeforeValue:
      if (ws) return state;
      if (b === QUOTE) return State.ExtQuoted;
      if (token) return State.ExtToken;
      break;
    case State.ExtToken:
      if (token) return state;
      if (b === CR) return State.SizeLf;
      if (b === SEMI) return State.ExtBeforeName;
      if (ws) return State.ExtAfterValueWs;
      break;
    case State.ExtQuoted:
      if (b === QUOTE) return State.ExtAfterQuoted;
      if (b === BACKSLASH) return State.ExtQuotedPair;
      if (classes[b]! & quotedChar) return state;
      break;
    case State.ExtQuotedPair:
      if (classes[b]! & (valueChar | quotedChar)) return State.ExtQuoted;
      break;
    case State.ExtAfterQuoted:
      if (b === CR) return State.SizeLf;
      if (b === SEMI) return State.ExtBeforeName;
      if (ws) return State.ExtAfterValueWs;
      break;
    case State.ExtAfterValueWs:
      if (ws) return state;
      if (b === SEMI) return State.ExtBeforeName;
      break;
  }
  throw new Error("a chunk extension is malformed");
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
