/**
 * A model's `source` string, parsed: `hf:org/repo/path/file[@revision]` (one file of a Hugging Face
 * repository), `hf:org/repo[@revision]` (a whole repository: a hub set, for vLLM), an http(s)
 * URL, or an absolute path on the node. `parseSource(text)` returns the parsed form or throws a
 * `TypeError` with a sentence. Pure.
 *
 * Why `?query` and `#fragment` are refused on `hf:`: they once hid a pickle's file name from the
 * check that refuses pickles (seed-changelog §5.8).
 */
export type ModelSource =
  | { kind: "hf"; repo: string; file?: string; revision?: string }
  | { kind: "url"; url: string }
  | { kind: "path"; path: string };

const hfRe = /^hf:([A-Za-z0-9][\w.-]*\/[\w.-]+)(?:\/([^@?#]+))?(?:@([\w./-]+))?$/;

export function parseSource(text: string): ModelSource {
  const s = text.trim();
  if (s.startsWith("hf:")) {
    if (/[?#]/.test(s)) throw new TypeError(`'${s}': a ? or # is not allowed in an hf: source`);
    const m = hfRe.exec(s);
    if (!m) {
      throw new TypeError(
        `'${s}' is not hf:ORG/REPO or hf:ORG/REPO/FILE (with @REVISION if pinned)`,
      );
    }
    const out: ModelSource = { kind: "hf", repo: m[1]! };
    if (m[2]) out.file = m[2];
    if (m[3]) out.revision = m[3];
    return out;
  }
  if (/^https?:\/\//i.test(s)) {
    try {
      return { kind: "url", url: new URL(s).toString() };
    } catch {
      throw new TypeError(`'${s}' is not a valid URL`);
    }
  }
  if (s.startsWith("/")) return { kind: "path", path: s };
  throw new TypeError(
    `'${s}' is not a source: give hf:ORG/REPO/FILE, an http(s) URL, or an absolute path on the node`,
  );
}

/** The file name a source points at (the last path segment), if it names one file. */
export function sourceFileName(src: ModelSource): string | undefined {
  const p = src.kind === "hf"
    ? src.file
    : src.kind === "url"
    ? new URL(src.url).pathname
    : src.path;
  if (!p) return undefined;
  const last = p.split("/").filter(Boolean).pop();
  return last || undefined;
}

/** Pickle formats run code when loaded (seed-changelog §5.8). */
export const pickleExtensions = [".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pt2"] as const;

export function isPickleName(name: string): boolean {
  const lower = name.toLowerCase();
  return pickleExtensions.some((ext) => lower.endsWith(ext));
}
