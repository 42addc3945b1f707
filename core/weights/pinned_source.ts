/**
 * A pinned source: what the control plane resolved a model's weights to when it was added, and
 * the only thing a node is told to fetch. Every remote file carries the sha256 its publisher
 * gave, so a node can prove the bytes it loads are those bytes. Shared by the control plane
 * (which makes them) and the node (which fetches them), so it lives with the fetcher.
 */
import { z } from "zod";
import { AppError } from "../errors.ts";

export interface PinnedFile {
  /** Relative to the version's directory; may hold `/` for files in sub-folders, never `..`. */
  path: string;
  /** Bytes, or null when the publisher did not say (a plain URL without a size). */
  size: number | null;
  /** Lower-case hex. */
  sha256: string;
}

export type PinnedSource =
  | {
    kind: "hf";
    /** `org/name`. */
    repo: string;
    /** The 40-hex commit current when the source was added. */
    commit: string;
    files: PinnedFile[];
    /** The file an engine is given (a single file, or a GGUF split's first part); absent: the directory. */
    entry?: string;
    allowPickle?: boolean;
  }
  | { kind: "url"; url: string; files: [PinnedFile]; entry?: string; allowPickle?: boolean }
  | { kind: "local"; path: string; allowPickle?: boolean };

export type RemoteSource = Exclude<PinnedSource, { kind: "local" }>;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "a sha256 is 64 lower-case hex digits");
const pinnedFile = z.strictObject({
  path: z.string().min(1),
  size: z.number().int().nonnegative().nullable(),
  sha256: sha256Hex,
});

/** For checking a pinned source that arrives as JSON (the store, the agent channel). */
export const pinnedSourceSchema: z.ZodType<PinnedSource> = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("hf"),
    repo: z.string().regex(/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/),
    commit: z.string().regex(/^[0-9a-f]{40}$/),
    files: z.array(pinnedFile).min(1),
    entry: z.string().optional(),
    allowPickle: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal("url"),
    url: z.string().url(),
    files: z.tuple([pinnedFile]),
    entry: z.string().optional(),
    allowPickle: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal("local"),
    path: z.string().min(1),
    allowPickle: z.boolean().optional(),
  }),
]) as unknown as z.ZodType<PinnedSource>;

/**
 * The version's folder under a weights or mirror directory: `org/name/<commit>` for the hub,
 * `url/<sha256>` for a plain URL (content-addressed, so two URLs of one file share it).
 * The mirror serves the same layout at `/mirror/<versionDir>/<path>`.
 */
export function versionDir(source: RemoteSource): string {
  return source.kind === "hf" ? `${source.repo}/${source.commit}` : `url/${source.files[0].sha256}`;
}

/** True when the source is a set of files that an engine is given as one directory or split. */
export function isSet(source: RemoteSource): boolean {
  return source.files.length > 1 || source.entry === undefined;
}

/** A short name for messages and progress: never a URL's credentials or query. */
export function describeSource(source: PinnedSource): string {
  switch (source.kind) {
    case "hf":
      return `hf:${source.repo}@${source.commit.slice(0, 12)}` +
        (source.entry && source.files.length === 1 ? `/${source.entry}` : "");
    case "url":
      return redactUrl(source.url);
    case "local":
      return source.path;
  }
}

/** A URL without its user, password, query or fragment, for logs and error text. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(an unparseable URL)";
  }
}

// `.bin` beside safetensors is the same model as a pickle; the rest are torch's and Python's.
const pickleExtensions = [".bin", ".pt", ".pt2", ".pth", ".ckpt", ".pkl", ".pickle"];

/** Whether a file name is a pickle format, which runs code when loaded. Case does not matter. */
export function isPickleName(name: string): boolean {
  const lower = name.toLowerCase();
  return pickleExtensions.some((ext) => lower.endsWith(ext));
}

/** Refuses the whole source if any file in it is a pickle and pickles are not allowed. */
export function checkPickles(source: PinnedSource, allowPickle = false): void {
  if (allowPickle || source.allowPickle) return;
  const names = source.kind === "local" ? [source.path] : source.files.map((f) => f.path);
  const pickle = names.find(isPickleName);
  if (pickle) throw new AppError("weights_pickle_refused", { file: pickle });
}

/**
 * A file's path inside a version must stay inside it and not collide with our bookkeeping:
 * relative, `/`-separated, no empty, `.` or `..` segment, no backslash or control character, no
 * hidden segment (sidecars and markers are hidden files) and no `.part` ending.
 */
export function checkFilePath(path: string, source: string): void {
  const bad = (detail: string) =>
    new AppError("weights_source_invalid", { source, detail: `file '${path}' ${detail}` });
  // deno-lint-ignore no-control-regex
  if (path.length === 0 || path.length > 1000 || /[\\\u0000-\u001f\u007f]/.test(path)) {
    throw bad("has a backslash, a control character or a bad length");
  }
  if (path.startsWith("/")) throw bad("is absolute");
  for (const seg of path.split("/")) {
    if (seg === "" || seg === "." || seg === "..") throw bad("escapes its folder");
    if (seg.startsWith(".")) throw bad("is hidden");
  }
  if (path.endsWith(".part")) throw bad("ends in .part");
}

/** Checks names and pickles: everything that must hold before a byte is fetched. */
export function checkSource(source: PinnedSource, allowPickle = false): void {
  checkPickles(source, allowPickle);
  if (source.kind === "local") return;
  const seen = new Set<string>();
  for (const f of source.files) {
    checkFilePath(f.path, describeSource(source));
    if (seen.has(f.path)) {
      throw new AppError("weights_source_invalid", {
        source: describeSource(source),
        detail: `file '${f.path}' is listed twice`,
      });
    }
    seen.add(f.path);
  }
}
