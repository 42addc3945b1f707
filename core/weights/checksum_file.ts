/**
 * Hashing files on disk, and the checksum kept beside each checked file so that a start does not
 * re-hash gigabytes. The sidecar is hidden (`.<name>.sha256`) so no scan takes it for weights.
 */
import { createHash, type Hash } from "node:crypto";
import { basename, dirname, join } from "node:path";

const chunkBytes = 4 * 1024 * 1024;

/** Where a file's checked sha256 is kept. Whoever deletes the file deletes this too. */
export function checksumPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.sha256`);
}

export async function readChecksum(file: string): Promise<string | null> {
  try {
    return (await Deno.readTextFile(checksumPath(file))).trim().toLowerCase() || null;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

export async function writeChecksum(file: string, sha256: string): Promise<void> {
  await Deno.writeTextFile(checksumPath(file), `${sha256}\n`, { mode: 0o644 });
}

/** Feeds a file into `hash` 4 MiB at a time; returns the bytes read. */
export async function hashInto(
  path: string,
  hash: Hash,
  onBytes: (n: number) => void = () => {},
  signal?: AbortSignal,
): Promise<number> {
  const f = await Deno.open(path, { read: true });
  const buf = new Uint8Array(chunkBytes);
  let total = 0;
  try {
    while (true) {
      signal?.throwIfAborted();
      const n = await f.read(buf);
      if (n === null) break;
      hash.update(buf.subarray(0, n));
      total += n;
      onBytes(n);
    }
  } finally {
    f.close();
  }
  return total;
}

export async function sha256File(
  path: string,
  onBytes?: (n: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const h = createHash("sha256");
  await hashInto(path, h, onBytes, signal);
  return h.digest("hex");
}

export async function removeIfThere(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

export async function sizeIfThere(path: string): Promise<number | null> {
  try {
    return (await Deno.stat(path)).size;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}
