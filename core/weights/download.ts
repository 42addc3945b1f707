/**
 * One file onto disk: into `<target>.part`, hashed as it streams, resumed with `Range` after a
 * cut (a CDN cut a 60 GB transfer at 23 GB), and renamed into place only when its sha256 is the
 * one published. A copy that does not match is deleted; a copy cut short is kept, so the next
 * try (or the next agent) carries on from it.
 */
import { dirname } from "node:path";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { backoffDelay } from "../backoff_delay.ts";
import { removeIfThere, writeChecksum } from "./checksum_file.ts";
import { inlineHasher, type StreamHasher, workerHasher } from "./stream_hasher.ts";
import type { PinnedFile } from "./pinned_source.ts";

/** One place the file can come from: a mirror, then the origin. */
export interface Candidate {
  url: string;
  headers: Record<string, string>;
  /** For messages: "mirror https://cp:8443" or "https://huggingface.co"; never a credential. */
  label: string;
  /** How this place is reached when not by the job's own fetch (a mirror: the cluster CA only). */
  fetch?: typeof fetch;
}

export interface DownloadDeps {
  fetch: typeof fetch;
  logger: Logger;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Tries per file before giving up (the partial copy is kept). */
  tries: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Files this large (or of unknown size) are hashed on a worker thread. */
  hashOnWorkerFrom: number;
}

export interface DownloadJob {
  candidates: Candidate[];
  file: PinnedFile;
  /** Final path; the copy in progress is `<target>.part`. */
  target: string;
  /** Who published the checksum, for the mismatch message ("the publisher", "hf:org/repo"). */
  publisher: string;
  /** The file as named in messages. */
  display: string;
  /** Called with the bytes now in the partial copy, after every chunk. */
  onBytes: (bytesInPart: number) => void;
  signal: AbortSignal;
}

const batchBytes = 1024 * 1024;

class PullError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

interface PartState {
  offset: number;
  hash: StreamHasher;
  newHasher: () => StreamHasher;
}

export async function downloadFile(deps: DownloadDeps, job: DownloadJob): Promise<void> {
  const part = `${job.target}.part`;
  await Deno.mkdir(dirname(part), { recursive: true });
  const big = job.file.size === null
    ? Number.isFinite(deps.hashOnWorkerFrom)
    : job.file.size >= deps.hashOnWorkerFrom;
  const state = await openPart(part, job, big ? workerHasher : inlineHasher);
  try {
    return await tryAll(deps, job, part, state);
  } finally {
    state.hash.dispose();
  }
}

async function tryAll(
  deps: DownloadDeps,
  job: DownloadJob,
  part: string,
  state: PartState,
): Promise<void> {
  const dead = new Set<number>();
  // The last failure of each place tried, in the order tried, so the message names every one.
  const reasons = new Map<number, string>();
  let preferred = 0;
  for (let attempt = 1; attempt <= deps.tries; attempt++) {
    const order = job.candidates.map((_, i) => (preferred + i) % job.candidates.length);
    for (const i of order) {
      if (dead.has(i)) continue;
      const cand = job.candidates[i]!;
      try {
        await pull(deps, job, cand, part, state);
        preferred = i;
        await finish(job, part, state);
        return;
      } catch (e) {
        if (e instanceof AppError) throw e;
        job.signal.throwIfAborted();
        const retryable = e instanceof PullError ? e.retryable : true;
        const message = scrub((e as Error).message, cand);
        reasons.set(i, `${cand.label}: ${message}`);
        if (!retryable) dead.add(i);
        deps.logger.warn("weights transfer interrupted", {
          file: job.display,
          attempt,
          from: cand.label,
          bytesInPart: state.offset,
          reason: message,
        });
      }
    }
    if (dead.size === job.candidates.length) break;
    if (attempt < deps.tries) {
      await deps.sleep(backoffDelay(attempt, deps.backoffBaseMs, deps.backoffMaxMs), job.signal);
    }
  }
  throw new AppError("weights_fetch_failed", {
    file: job.display,
    detail: `${[...reasons.values()].join("; ")} (the ${state.offset} bytes fetched are kept for ` +
      `the next try)`,
  });
}

/** The partial copy left by a cut or a restart, hashed again so hashing can carry on from its end. */
async function openPart(
  part: string,
  job: DownloadJob,
  newHasher: () => StreamHasher,
): Promise<PartState> {
  const state: PartState = { offset: 0, hash: newHasher(), newHasher };
  let f: Deno.FsFile;
  try {
    f = await Deno.open(part, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return state;
    state.hash.dispose();
    throw e;
  }
  try {
    const buf = new Uint8Array(batchBytes);
    while (true) {
      job.signal.throwIfAborted();
      const n = await f.read(buf);
      if (n === null) break;
      await state.hash.update(buf.subarray(0, n));
      state.offset += n;
    }
  } catch (e) {
    state.hash.dispose();
    throw e;
  } finally {
    f.close();
  }
  if (job.file.size !== null && state.offset > job.file.size) {
    await restart(part, state);
  }
  if (state.offset > 0) job.onBytes(state.offset);
  return state;
}

async function pull(
  deps: DownloadDeps,
  job: DownloadJob,
  cand: Candidate,
  part: string,
  state: PartState,
): Promise<void> {
  const size = job.file.size;
  if (size !== null && state.offset === size) return;
  const headers: Record<string, string> = { ...cand.headers };
  if (state.offset > 0) headers.range = `bytes=${state.offset}-`;
  const res = await (cand.fetch ?? deps.fetch)(cand.url, {
    headers,
    signal: job.signal,
    redirect: "follow",
  });
  if (res.status === 416) {
    await res.body?.cancel();
    await restart(part, state);
    throw new PullError("the server refused the range asked for; starting the file again", true);
  }
  if (!res.ok) {
    await res.body?.cancel();
    const permanent = [400, 401, 403, 404, 410].includes(res.status);
    throw new PullError(`HTTP ${res.status}`, !permanent);
  }
  if (res.status === 200 && state.offset > 0) {
    // The server ignored Range: what comes is the whole file.
    await restart(part, state);
  } else if (res.status === 206) {
    const start = /^bytes (\d+)-/.exec(res.headers.get("content-range") ?? "")?.[1];
    if (Number(start) !== state.offset) {
      await res.body?.cancel();
      throw new PullError(`the server answered from byte ${start}, not ${state.offset}`, true);
    }
  }
  const length = res.headers.get("content-length");
  const expectEnd = length !== null ? state.offset + Number(length) : size;
  if (!res.body) throw new PullError("the answer had no body", true);
  const f = await Deno.open(part, { write: true, create: true, append: true });
  // Chunks from the socket are small; hashing and writing them in 1 MiB batches is what keeps
  // up with curl. Bytes still in the batch are written before any error leaves.
  const batch = new Uint8Array(batchBytes);
  let fill = 0;
  const flush = async () => {
    if (fill === 0) return;
    const data = batch.subarray(0, fill);
    // The write runs on Deno's I/O threads while this thread hashes the same bytes.
    const written = writeAll(f, data);
    await state.hash.update(data);
    await written;
    state.offset += fill;
    fill = 0;
  };
  try {
    for await (const chunk of res.body) {
      if (size !== null && state.offset + fill + chunk.byteLength > size) {
        await res.body.cancel().catch(() => {});
        await restart(part, state);
        fill = 0;
        throw new PullError(`the file is larger than the ${size} bytes published`, false);
      }
      let off = 0;
      while (off < chunk.byteLength) {
        const n = Math.min(chunk.byteLength - off, batch.byteLength - fill);
        batch.set(chunk.subarray(off, off + n), fill);
        fill += n;
        off += n;
        if (fill === batch.byteLength) await flush();
      }
      job.onBytes(state.offset + fill);
    }
    await flush();
  } catch (e) {
    await flush().catch(() => {});
    if (e instanceof PullError) throw e;
    throw new PullError(`the transfer was cut: ${(e as Error).message}`, true);
  } finally {
    f.close();
  }
  if (expectEnd !== null && state.offset < expectEnd) {
    throw new PullError(`the transfer ended at ${state.offset} of ${expectEnd} bytes`, true);
  }
}

async function finish(job: DownloadJob, part: string, state: PartState): Promise<void> {
  const actual = await state.hash.digest();
  if (actual !== job.file.sha256) {
    await removeIfThere(part);
    throw new AppError("weights_checksum_mismatch", {
      file: job.display,
      actual,
      expected: job.file.sha256,
      publisher: job.publisher,
    });
  }
  await Deno.rename(part, job.target);
  await writeChecksum(job.target, actual);
}

async function restart(part: string, state: PartState): Promise<void> {
  await Deno.truncate(part, 0).catch(() => {});
  state.offset = 0;
  state.hash.dispose();
  state.hash = state.newHasher();
}

/** An error's text without the address's query or credentials (a signed URL carries its token there). */
function scrub(message: string, cand: Candidate): string {
  return message.replaceAll(cand.url, cand.label)
    .replace(/(https?:\/\/)[^\s/@]*@/g, "$1")
    .replace(/(https?:\/\/[^\s?#)]+)[?#][^\s)]*/g, "$1");
}

async function writeAll(f: Deno.FsFile, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.byteLength) off += await f.write(data.subarray(off));
}
