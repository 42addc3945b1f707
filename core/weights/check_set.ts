/**
 * The check before a set counts as there: every file's sha256 against the pinned one, four
 * files at a time (six 50 GB shards took eight minutes on one core, with nothing said). A file
 * whose kept checksum already matches costs nothing; any other is hashed and its sum kept.
 */
import { join } from "node:path";
import { AppError } from "../errors.ts";
import {
  checksumPath,
  readChecksum,
  removeIfThere,
  sha256File,
  sizeIfThere,
  writeChecksum,
} from "./checksum_file.ts";
import type { PinnedFile } from "./pinned_source.ts";

export const checkAtOnce = 4;

export interface CheckJob {
  dir: string;
  files: PinnedFile[];
  sourceName: string;
  publisher: string;
  /** Bytes checked so far; `force` at the start and the end. */
  onProgress: (bytesChecked: number, force: boolean) => void;
  signal: AbortSignal;
}

export async function checkFiles(job: CheckJob): Promise<void> {
  let done = 0;
  job.onProgress(0, true);
  const queue = [...job.files];
  let failure: unknown = null;
  const worker = async () => {
    while (queue.length > 0 && failure === null) {
      const file = queue.shift()!;
      try {
        await checkOne(job, file, (n) => {
          done += n;
          job.onProgress(done, false);
        });
      } catch (e) {
        failure ??= e; // the first error wins
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(checkAtOnce, queue.length) }, worker));
  if (failure !== null) throw failure;
  job.onProgress(done, true);
}

async function checkOne(job: CheckJob, file: PinnedFile, onBytes: (n: number) => void) {
  const target = join(job.dir, file.path);
  const size = await sizeIfThere(target);
  const display = `${job.sourceName}: ${file.path}`;
  if (size === null) {
    throw new AppError("weights_fetch_failed", { file: display, detail: "it is missing" });
  }
  const kept = await readChecksum(target);
  if (kept === file.sha256) return onBytes(size);
  if (kept !== null) {
    throw new AppError("weights_checksum_conflict", {
      file: display,
      actual: kept,
      expected: file.sha256,
    });
  }
  const actual = await sha256File(target, onBytes, job.signal);
  if (actual !== file.sha256) {
    await removeIfThere(target);
    await removeIfThere(checksumPath(target));
    throw new AppError("weights_checksum_mismatch", {
      file: display,
      actual,
      expected: file.sha256,
      publisher: job.publisher,
    });
  }
  await writeChecksum(target, actual);
}
