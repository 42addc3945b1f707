/**
 * `readGgufFile(path, {maxBytes})` → `GgufFacts` (plus the raw header): reads a GGUF file's
 * header from its first bytes only, growing the read (1 MB, doubling) until the header parses or
 * `maxBytes` (default 64 MB) is reached. Errors are `GgufError` sentences naming the file; a
 * truncated or corrupt file fails at once (counts are checked against the file's size), never
 * hangs.
 */
import { GgufError, type GgufHeader, GgufNeedMore, parseGguf } from "./gguf_parse.ts";
import { type GgufFacts, ggufFacts } from "./gguf_facts.ts";

export const defaultGgufMaxBytes = 64 * 1024 * 1024;

export interface GgufRead {
  facts: GgufFacts;
  header: GgufHeader;
}

export async function readGgufFile(
  path: string,
  opts: { maxBytes?: number } = {},
): Promise<GgufRead> {
  const maxBytes = opts.maxBytes ?? defaultGgufMaxBytes;
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw new GgufError(`${path}: no such file`);
    throw new GgufError(`${path}: cannot be opened (${(e as Error).message})`);
  }
  try {
    const { size } = await file.stat();
    let want = Math.min(size, 1024 * 1024, maxBytes);
    let buf: Uint8Array = new Uint8Array(0);
    for (;;) {
      buf = await readPrefix(file, buf, want);
      try {
        const header = parseGguf(buf, size);
        return { header, facts: ggufFacts(header, size) };
      } catch (e) {
        if (e instanceof GgufError) throw new GgufError(`${path}: ${e.message}`);
        if (!(e instanceof GgufNeedMore)) throw e;
        if (want >= maxBytes || want >= size) {
          throw new GgufError(
            `${path}: the GGUF header is larger than the ${maxBytes} bytes read for it`,
          );
        }
        want = Math.min(Math.max(want * 2, e.needed), maxBytes, size);
      }
    }
  } finally {
    file.close();
  }
}

/** Extends `have` to `want` bytes from where it ends. */
async function readPrefix(file: Deno.FsFile, have: Uint8Array, want: number): Promise<Uint8Array> {
  if (have.byteLength >= want) return have;
  const out = new Uint8Array(want);
  out.set(have);
  let at = have.byteLength;
  await file.seek(at, Deno.SeekMode.Start);
  while (at < want) {
    const n = await file.read(out.subarray(at));
    if (n === null) break;
    at += n;
  }
  return at === want ? out : out.subarray(0, at);
}
