/**
 * The slot files the router has llama-server save into its directory (`--slot-save-path ./`,
 * server/router/slot_keeper.ts): one per conversation kept warm, often hundreds of MB each. The
 * router bounds how many it asks for per replica, but a router restarted, several routers, or
 * an engine restarted on another port forget theirs, so the node bounds them too: by age and by
 * total size per engine directory, oldest first, and all of a replica's go when it stops. A
 * conversation whose file went is only recomputed (its restore fails, and the router carries on).
 */

/** What the router names them: `llmgw-<session hash in hex>.bin`; nothing else is touched. */
const slotFileName = /^llmgw-[0-9a-f]+\.bin$/;

export interface SlotFileLimits {
  /** Total bytes kept per engine directory. */
  readonly maxBytes: number;
  /** A file not written for this long goes. */
  readonly maxAgeMs: number;
}

interface SlotFile {
  readonly path: string;
  readonly bytes: number;
  readonly mtime: number;
}

async function slotFiles(dir: string): Promise<SlotFile[]> {
  const out: SlotFile[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !slotFileName.test(e.name)) continue;
      const path = `${dir}/${e.name}`;
      try {
        const st = await Deno.stat(path);
        out.push({ path, bytes: st.size, mtime: st.mtime?.getTime() ?? 0 });
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no directory: nothing saved
  }
  return out;
}

async function removeAll(paths: readonly string[]): Promise<void> {
  await Promise.all(paths.map((p) => Deno.remove(p).catch(() => {})));
}

/**
 * Removes, in `dir`, the slot files older than the age limit, then the oldest beyond the size
 * limit; returns what was removed.
 */
export async function pruneSlotFiles(
  dir: string,
  limits: SlotFileLimits,
  now: number = Date.now(),
): Promise<{ readonly files: number; readonly bytes: number }> {
  const files = (await slotFiles(dir)).sort((a, b) => b.mtime - a.mtime);
  const gone: SlotFile[] = [];
  let kept = 0;
  for (const f of files) {
    if (now - f.mtime > limits.maxAgeMs || kept + f.bytes > limits.maxBytes) gone.push(f);
    else kept += f.bytes;
  }
  await removeAll(gone.map((f) => f.path));
  return { files: gone.length, bytes: gone.reduce((a, f) => a + f.bytes, 0) };
}

/** Every slot file in `dir`: its engine stopped, and no later engine can restore them. */
export async function removeSlotFiles(dir: string): Promise<void> {
  await removeAll((await slotFiles(dir)).map((f) => f.path));
}

/** Prunes every engine directory under `replicasDir` every `everyMs`, until `stop`. */
export function sweepSlotFiles(
  replicasDir: string,
  limits: SlotFileLimits,
  everyMs: number,
  onPruned: (dir: string, removed: { files: number; bytes: number }) => void = () => {},
): { stop(): void } {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      for await (const e of Deno.readDir(replicasDir)) {
        if (!e.isDirectory) continue;
        const dir = `${replicasDir}/${e.name}`;
        const removed = await pruneSlotFiles(dir, limits);
        if (removed.files) onPruned(dir, removed);
      }
    } catch {
      // no engines yet
    } finally {
      running = false;
    }
  }, everyMs);
  Deno.unrefTimer(timer);
  return { stop: () => clearInterval(timer) };
}
