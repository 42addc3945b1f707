/**
 * Pinning: when a model (or a mirror version) is added, its `hf:` source is resolved to the
 * commit current then, and every file's published sha256 and size are written down. After this
 * nothing moves: nodes fetch that commit and check those sums. A source that cannot be resolved
 * is refused with the reason; a pickle is refused before any request for its bytes.
 *
 * Files outside LFS (config.json, tokenizer files) have no published sha256, only a git blob
 * sha1. They are small by git's rules, so the control plane fetches them at pin time and records
 * their sha256; nodes then check them like any other file.
 */
import { AppError } from "../../core/errors.ts";
import {
  checkPickles,
  checkSource,
  isPickleName,
  type PinnedFile,
  type PinnedSource,
} from "../../core/weights/pinned_source.ts";
import { type HfClient, HubError, type TreeEntry } from "./hf_client.ts";
import { type ParsedSource, shown } from "./parse_source.ts";

/** Files that travel with safetensors shards: what an engine reads beside the weights. */
const companionFiles = new Set([
  "config.json",
  "generation_config.json",
  "tokenizer.json",
  "tokenizer_config.json",
  "tokenizer.model",
  "special_tokens_map.json",
  "added_tokens.json",
  "vocab.json",
  "vocab.txt",
  "merges.txt",
  "preprocessor_config.json",
  "processor_config.json",
  "chat_template.json",
  "chat_template.jinja",
]);

const splitPattern = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

export interface PinOptions {
  /** The hub; null where it is not configured (then hf: sources are refused). */
  hub: HfClient | null;
  allowPickle?: boolean;
  /**
   * One .safetensors file named brings its folder's set (weights, config, tokenizer), and the
   * engine is given the folder: what a model served by vLLM needs. Off, one file is one file
   * (`mirror add` of a single shard).
   */
  safetensorsSet?: boolean;
}

export async function pinSource(parsed: ParsedSource, opts: PinOptions): Promise<PinnedSource> {
  const allow = opts.allowPickle === true;
  const extra = allow ? { allowPickle: true } : {};
  switch (parsed.kind) {
    case "local": {
      const pinned: PinnedSource = { kind: "local", path: parsed.path, ...extra };
      checkPickles(pinned, allow);
      return pinned;
    }
    case "url": {
      const pinned: PinnedSource = {
        kind: "url",
        url: parsed.url,
        files: [{ path: parsed.fileName, size: null, sha256: parsed.sha256 }],
        entry: parsed.fileName,
        ...extra,
      };
      checkSource(pinned, allow);
      return pinned;
    }
    case "hf":
      return await pinHf(parsed, opts.hub, allow, opts.safetensorsSet === true);
  }
}

async function pinHf(
  parsed: Extract<ParsedSource, { kind: "hf" }>,
  hub: HfClient | null,
  allow: boolean,
  wholeSet: boolean,
): Promise<PinnedSource> {
  const name = `hf:${parsed.repo}${parsed.path ? `/${parsed.path}` : ""}`;
  const unresolvable = (detail: string) =>
    new AppError("weights_unresolvable", { source: shown(name), detail }, "source");
  // Before any request: a pickle named outright is refused without asking anyone for it.
  if (parsed.path && isPickleName(parsed.path) && !allow) {
    throw new AppError("weights_pickle_refused", { file: name }, "source");
  }
  if (!hub) throw unresolvable("no Hugging Face endpoint is configured (weights.hf_endpoint)");
  try {
    const commit = await hub.commitOf(parsed.repo, parsed.revision);
    const files = (await hub.tree(parsed.repo, commit)).filter((e) => e.type === "file");
    const { chosen, entry } = parsed.path
      ? wholeSet && /\.safetensors$/i.test(parsed.path)
        ? safetensorsOf(files, parsed.path, unresolvable)
        : chooseFile(files, parsed.path, unresolvable)
      : chooseSet(files, allow, parsed.repo, unresolvable);
    // Refuse the whole set before fetching even its small files.
    const names: PinnedSource = {
      kind: "hf",
      repo: parsed.repo,
      commit,
      files: chosen.map((e) => ({ path: e.path, size: 0, sha256: "0".repeat(64) })),
    };
    checkSource(names, allow);
    const pinnedFiles: PinnedFile[] = [];
    for (const e of chosen) {
      if (e.lfs && /^[0-9a-f]{64}$/.test(e.lfs.oid)) {
        pinnedFiles.push({ path: e.path, size: e.lfs.size, sha256: e.lfs.oid });
      } else {
        const { sha256, size } = await hub.hashSmallFile(parsed.repo, commit, e.path);
        pinnedFiles.push({ path: e.path, size, sha256 });
      }
    }
    return {
      kind: "hf",
      repo: parsed.repo,
      commit,
      files: pinnedFiles,
      ...(entry !== undefined ? { entry } : {}),
      ...(allow ? { allowPickle: true } : {}),
    };
  } catch (e) {
    if (e instanceof HubError) throw unresolvable(e.message);
    throw e;
  }
}

function chooseFile(
  files: TreeEntry[],
  path: string,
  unresolvable: (d: string) => AppError,
): { chosen: TreeEntry[]; entry?: string } {
  const file = files.find((f) => f.path === path);
  if (!file) throw unresolvable(`the repository has no file '${path}' at that revision`);
  const split = splitPattern.exec(path);
  if (!split) return { chosen: [file], entry: path };
  // A split's parts load together: asking for one brings them all; the engine is given the first.
  const parts = files
    .filter((f) => {
      const m = splitPattern.exec(f.path);
      return m && m[1] === split[1] && m[3] === split[3];
    })
    .sort((a, b) => a.path.localeCompare(b.path));
  if (parts.length !== Number(split[3])) {
    throw unresolvable(
      `the split ${split[1]} has ${parts.length} of its ${Number(split[3])} parts`,
    );
  }
  return { chosen: parts, entry: parts[0]!.path };
}

/**
 * One .safetensors file named: its folder's weights and companions come with it, and the engine
 * is given the folder (vLLM reads config and tokenizer beside the weights; a file alone is refused).
 */
function safetensorsOf(
  files: TreeEntry[],
  path: string,
  unresolvable: (d: string) => AppError,
): { chosen: TreeEntry[]; entry?: string } {
  if (!files.some((f) => f.path === path)) {
    throw unresolvable(`the repository has no file '${path}' at that revision`);
  }
  const folder = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "";
  const inFolder = (f: TreeEntry) =>
    folder
      ? f.path.startsWith(`${folder}/`) && !f.path.slice(folder.length + 1).includes("/")
      : !f.path.includes("/");
  const base = (f: TreeEntry) => f.path.slice(folder ? folder.length + 1 : 0);
  const chosen = files.filter((f) =>
    inFolder(f) &&
    (base(f).endsWith(".safetensors") || companionFiles.has(base(f)) ||
      base(f).endsWith(".index.json"))
  );
  return folder ? { chosen, entry: folder } : { chosen };
}

function chooseSet(
  files: TreeEntry[],
  allow: boolean,
  repo: string,
  unresolvable: (d: string) => AppError,
): { chosen: TreeEntry[]; entry?: string } {
  const top = files.filter((f) => !f.path.includes("/"));
  const companions = top.filter((f) =>
    companionFiles.has(f.path) || f.path.endsWith(".index.json")
  );
  const safetensors = top.filter((f) => f.path.endsWith(".safetensors"));
  if (safetensors.length > 0) return { chosen: [...safetensors, ...companions] };

  const ggufs = files.filter((f) => /\.gguf$/i.test(f.path));
  if (ggufs.length > 0) {
    const groups = new Map<string, TreeEntry[]>();
    for (const g of ggufs) {
      const key = splitPattern.exec(g.path)?.[1] ?? g.path;
      groups.set(key, [...(groups.get(key) ?? []), g]);
    }
    if (groups.size === 1) {
      const [only] = groups.values();
      return chooseFile(
        files,
        only!.sort((a, b) => a.path.localeCompare(b.path))[0]!.path,
        unresolvable,
      );
    }
    const examples = [...groups.values()].slice(0, 3).map((g) => `hf:${repo}/${g[0]!.path}`);
    throw unresolvable(
      `the repository holds ${groups.size} GGUF models; name one, e.g. ${examples.join(", ")}`,
    );
  }
  const pickles = top.filter((f) => isPickleName(f.path));
  if (pickles.length > 0) {
    if (!allow) {
      throw new AppError(
        "weights_pickle_refused",
        { file: `hf:${repo}/${pickles[0]!.path}` },
        "source",
      );
    }
    return { chosen: [...pickles, ...companions] };
  }
  throw unresolvable("the repository holds neither safetensors nor GGUF weights");
}
