/**
 * GGUF header parser: magic, version, tensor count, every metadata key/value (all 13 value types,
 * arrays included) and the tensor directory, from the first bytes of a file.
 *
 * `parseGguf(bytes, fileSize?)` is pure. It throws `GgufError` with a sentence for a file that is
 * not GGUF, a version it cannot read, or a header that lies (counts or lengths past the end of
 * the file, absurd sizes); `GgufNeedMore` when `bytes` stops before the header ends, so a caller
 * reading a prefix (`readGgufFile`) can read more, within its bound.
 *
 * Why bounded: the header of a 100 GB model is a few MB (most of it the tokenizer's vocabulary);
 * the weights after it are never read. Long arrays (the vocabulary) are skipped, keeping their
 * type and length only, so memory stays proportional to what is asked for.
 */

export class GgufError extends Error {
  override name = "GgufError";
}

/** The prefix given ends inside the header; `needed` is a lower bound on the bytes required. */
export class GgufNeedMore extends Error {
  override name = "GgufNeedMore";
  constructor(readonly needed: number) {
    super(`the GGUF header continues past byte ${needed}`);
  }
}

export type GgufScalar = number | bigint | boolean | string;
/** An array kept in full when short; a long one (a vocabulary) keeps its element type and length. */
export type GgufArray = { type: string; length: number; values?: GgufScalar[] };
export type GgufValue = GgufScalar | GgufArray;

export interface GgufTensorInfo {
  name: string;
  dims: number[];
  type: number;
  offset: number;
}

export interface GgufHeader {
  version: number;
  tensorCount: number;
  metadata: Map<string, GgufValue>;
  tensors: GgufTensorInfo[];
  /** Where tensor data starts (header end rounded up to `general.alignment`). */
  dataOffset: number;
}

const typeNames = [
  "uint8",
  "int8",
  "uint16",
  "int16",
  "uint32",
  "int32",
  "float32",
  "bool",
  "string",
  "array",
  "uint64",
  "int64",
  "float64",
] as const;

/** Arrays up to this length are kept; longer ones are skipped (tokenizer tables). */
const keptArrayLength = 1024;
/** Sanity bounds: a header claiming more is corrupt, not big. */
const maxTensors = 10_000_000;
const maxKeys = 1_000_000;
const maxDims = 8;
const maxStringBytes = 64 * 1024 * 1024;

class Cursor {
  pos = 0;
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array, readonly fileSize: number | undefined) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  need(n: number): void {
    const end = this.pos + n;
    if (this.fileSize !== undefined && end > this.fileSize) {
      throw new GgufError(`the GGUF header runs past the end of the file (byte ${end})`);
    }
    if (end > this.bytes.byteLength) throw new GgufNeedMore(end);
  }
  u8(): number {
    this.need(1);
    return this.view.getUint8(this.pos++);
  }
  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  u64(): number {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GgufError(`a count or offset in the GGUF header is absurdly large (${v})`);
    }
    return Number(v);
  }
  string(): string {
    const len = this.u64();
    if (len > maxStringBytes) {
      throw new GgufError(`a string in the GGUF header claims ${len} bytes`);
    }
    this.need(len);
    const s = new TextDecoder().decode(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }
}

function scalar(c: Cursor, type: number): GgufScalar {
  const v = c.view;
  const at = (n: number) => {
    c.need(n);
    const p = c.pos;
    c.pos += n;
    return p;
  };
  switch (type) {
    case 0:
      return v.getUint8(at(1));
    case 1:
      return v.getInt8(at(1));
    case 2:
      return v.getUint16(at(2), true);
    case 3:
      return v.getInt16(at(2), true);
    case 4:
      return v.getUint32(at(4), true);
    case 5:
      return v.getInt32(at(4), true);
    case 6:
      return v.getFloat32(at(4), true);
    case 7:
      return v.getUint8(at(1)) !== 0;
    case 8:
      return c.string();
    case 10: {
      const b = v.getBigUint64(at(8), true);
      return b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
    }
    case 11: {
      const b = v.getBigInt64(at(8), true);
      return b <= BigInt(Number.MAX_SAFE_INTEGER) && b >= BigInt(Number.MIN_SAFE_INTEGER)
        ? Number(b)
        : b;
    }
    case 12:
      return v.getFloat64(at(8), true);
    default:
      throw new GgufError(`unknown GGUF value type ${type}`);
  }
}

const fixedSize: Record<number, number> = {
  0: 1,
  1: 1,
  2: 2,
  3: 2,
  4: 4,
  5: 4,
  6: 4,
  7: 1,
  10: 8,
  11: 8,
  12: 8,
};

function value(c: Cursor, type: number, depth = 0): GgufValue {
  if (type !== 9) return scalar(c, type);
  if (depth > 2) throw new GgufError("GGUF arrays nested too deeply");
  const elemType = c.u32();
  const length = c.u64();
  const name = typeNames[elemType];
  if (!name) throw new GgufError(`unknown GGUF array element type ${elemType}`);
  const size = fixedSize[elemType];
  // A length the file cannot hold is corruption; test it before looping over it.
  if (size !== undefined && c.fileSize !== undefined && c.pos + size * length > c.fileSize) {
    throw new GgufError(`a GGUF array claims ${length} elements, more than the file holds`);
  }
  if (length <= keptArrayLength) {
    const values: GgufScalar[] = [];
    for (let i = 0; i < length; i++) {
      const item = value(c, elemType, depth + 1);
      if (typeof item === "object") throw new GgufError("nested GGUF arrays are not supported");
      values.push(item);
    }
    return { type: name, length, values };
  }
  if (size !== undefined) c.skip(size * length);
  else for (let i = 0; i < length; i++) value(c, elemType, depth + 1);
  return { type: name, length };
}

export function parseGguf(bytes: Uint8Array, fileSize?: number): GgufHeader {
  const c = new Cursor(bytes, fileSize);
  if (fileSize !== undefined && fileSize < 4) {
    throw new GgufError(`not a GGUF file: only ${fileSize} bytes`);
  }
  c.need(4);
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  if (magic !== "GGUF") throw new GgufError("not a GGUF file: it does not start with 'GGUF'");
  c.pos = 4;
  const version = c.u32();
  if (version < 2 || version > 3) {
    throw new GgufError(`GGUF version ${version} is not supported (2 and 3 are)`);
  }
  const tensorCount = c.u64();
  const kvCount = c.u64();
  if (tensorCount > maxTensors) throw new GgufError(`GGUF claims ${tensorCount} tensors`);
  if (kvCount > maxKeys) throw new GgufError(`GGUF claims ${kvCount} metadata keys`);
  const metadata = new Map<string, GgufValue>();
  for (let i = 0; i < kvCount; i++) {
    const key = c.string();
    metadata.set(key, value(c, c.u32()));
  }
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = c.string();
    const nDims = c.u32();
    if (nDims > maxDims) throw new GgufError(`tensor '${name}' claims ${nDims} dimensions`);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(c.u64());
    tensors.push({ name, dims, type: c.u32(), offset: c.u64() });
  }
  const align = metadata.get("general.alignment");
  const alignment = typeof align === "number" && align > 0 ? align : 32;
  const dataOffset = Math.ceil(c.pos / alignment) * alignment;
  return { version, tensorCount, metadata, tensors, dataOffset };
}
