/**
 * Purge: a model's files leave the node once its replicas have stopped, except files another
 * model's pinned source also names (reference-counted by pinned source, so two models on one
 * commit, or one URL file under two names, keep what they share).
 */
import { dirname, join } from "node:path";
import { checksumPath, removeIfThere } from "./checksum_file.ts";
import { manifestDigest } from "./fetcher.ts";
import { type PinnedSource, versionDir } from "./pinned_source.ts";

export interface RemoveResult {
  /** Paths deleted (files, not their sidecars). */
  removed: string[];
  /** Paths kept because another source names them. */
  kept: string[];
}

export async function removeWeights(
  weightsDir: string,
  remove: PinnedSource,
  keep: PinnedSource[],
): Promise<RemoveResult> {
  // A local path was never ours to fetch, so it is never ours to delete.
  if (remove.kind === "local") return { removed: [], kept: [] };
  const inUse = new Set<string>();
  for (const s of keep) {
    if (s.kind === "local") continue;
    for (const f of s.files) inUse.add(join(weightsDir, versionDir(s), f.path));
  }
  const dir = join(weightsDir, versionDir(remove));
  const out: RemoveResult = { removed: [], kept: [] };
  const touched = new Set<string>();
  for (const f of remove.files) {
    const path = join(dir, f.path);
    if (inUse.has(path)) {
      out.kept.push(path);
      continue;
    }
    await removeIfThere(path);
    await removeIfThere(checksumPath(path));
    await removeIfThere(`${path}.part`);
    out.removed.push(path);
    touched.add(dirname(path));
  }
  await removeIfThere(join(dir, `.complete.${manifestDigest(remove)}`));
  touched.add(dir);
  // Folders left empty go too, up to (not including) the weights directory.
  for (const start of [...touched].sort((a, b) => b.length - a.length)) {
    let d = start;
    while (d.startsWith(weightsDir + "/") && d !== weightsDir) {
      try {
        await Deno.remove(d); // only succeeds when empty
      } catch {
        break;
      }
      d = dirname(d);
    }
  }
  return out;
}

/**
 * `ctl weights prune`: every fetched version under `weightsDir` that no source in `keep` names
 * goes (`org/repo/<commit>` for the hub, `url/<sha256>` for a URL; nothing else there is
 * touched), with the folders it leaves empty. Returns the version folders removed.
 */
export async function pruneWeights(weightsDir: string, keep: PinnedSource[]): Promise<string[]> {
  const kept = new Set(
    keep.flatMap((s) => s.kind === "local" ? [] : [join(weightsDir, versionDir(s))]),
  );
  const versions: string[] = [];
  for (const org of await dirs(weightsDir)) {
    for (const repo of await dirs(join(weightsDir, org))) {
      if (org === "url" && /^[0-9a-f]{64}$/.test(repo)) {
        versions.push(join(weightsDir, org, repo));
        continue;
      }
      for (const commit of await dirs(join(weightsDir, org, repo))) {
        if (/^[0-9a-f]{40}$/.test(commit)) versions.push(join(weightsDir, org, repo, commit));
      }
    }
  }
  const removed: string[] = [];
  for (const v of versions.filter((v) => !kept.has(v))) {
    await Deno.remove(v, { recursive: true });
    removed.push(v);
    for (let d = dirname(v); d.startsWith(weightsDir + "/"); d = dirname(d)) {
      try {
        await Deno.remove(d); // only succeeds when empty
      } catch {
        break;
      }
    }
  }
  return removed;
}

async function dirs(path: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(path)) if (e.isDirectory) out.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return out;
}
