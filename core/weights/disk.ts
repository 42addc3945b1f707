/** Free space, and byte counts as people read them. */
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";

/** Bytes free to an unprivileged writer on the filesystem holding `dir` (or its nearest parent). */
export async function freeBytes(dir: string): Promise<number | null> {
  let d = dir;
  for (let i = 0; i < 64; i++) {
    try {
      const s = await statfs(d);
      return Number(s.bavail) * Number(s.bsize);
    } catch {
      const up = dirname(d);
      if (up === d) return null;
      d = up;
    }
  }
  return null;
}

export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v.toFixed(1)} ${units[i]}`;
}
