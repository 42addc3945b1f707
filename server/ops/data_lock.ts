/**
 * One control plane per data directory: a running one holds an exclusive lock on
 * `DATA/llmgw.lock` for its whole life (the kernel drops it when the process dies, even by
 * SIGKILL, so a stale lock cannot outlive its holder). `restore` and a second server check it.
 */
import { StoreError } from "../../db/store.ts";

export interface DataLock {
  release(): void;
}

/**
 * Takes the lock, or says who has it. Deno's lock waits, so waiting longer than `waitMs` means
 * another process holds it; the caller then exits (the wait is abandoned with the process).
 */
export async function lockDataDir(dataDir: string, waitMs = 1_500): Promise<DataLock> {
  const file = await Deno.open(`${dataDir}/llmgw.lock`, {
    read: true,
    write: true,
    create: true,
    mode: 0o600,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const held = await Promise.race([
    file.lock(true).then(() => false),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), waitMs))),
  ]);
  clearTimeout(timer);
  if (held) {
    throw new StoreError(
      `Another llmgw is running on ${dataDir} (it holds ${dataDir}/llmgw.lock). Stop it first.`,
    );
  }
  return {
    release() {
      try {
        file.unlockSync();
      } catch {
        // Closed already.
      }
      file.close();
    },
  };
}
