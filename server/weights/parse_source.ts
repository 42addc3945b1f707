/**
 * A weights source as a person writes it, parsed strictly before anything is asked of anyone:
 *
 *   hf:org/repo                 a set (safetensors shards with config and tokenizer, or a GGUF split)
 *   hf:org/repo/path/file       one file (a split's first part brings the whole split)
 *   https://host/path/file      one file; its sha256 must be given
 *   /abs/path                   a file or folder already on the node
 *
 * A resolve URL on the hub (`<endpoint>/org/repo/resolve/<rev>/<path>`) is read as the `hf:`
 * source it names, so it is pinned like one. `?query` and `#fragment` cannot hide a file name:
 * an `hf:` source may have neither, and a URL's file name is taken from its decoded path.
 */
import { AppError } from "../../core/errors.ts";
import { checkFilePath } from "../../core/weights/pinned_source.ts";

export type ParsedSource =
  | { kind: "hf"; repo: string; revision: string; path: string | null }
  | { kind: "url"; url: string; fileName: string; sha256: string }
  | { kind: "local"; path: string };

const repoPart = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,95})$/;

export function parseSource(
  text: string,
  opts: { sha256?: string; revision?: string; hubEndpoint?: string } = {},
): ParsedSource {
  const raw = text.trim();
  const invalid = (detail: string) =>
    new AppError("weights_source_invalid", { source: shown(raw), detail }, "source");
  if (raw === "") throw invalid("it is empty");
  if (raw.startsWith("hf:")) return parseHf(raw.slice(3), opts.revision ?? "main", invalid);
  if (/^https?:\/\//i.test(raw)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw invalid("it is not a URL");
    }
    if (u.username || u.password) {
      throw invalid("credentials do not belong in a URL; use a token file");
    }
    const hub = opts.hubEndpoint ? new URL(opts.hubEndpoint) : null;
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(u.pathname);
    if (hub && u.host === hub.host && resolve) {
      if (u.hash || [...u.searchParams.keys()].some((k) => k !== "download")) {
        throw invalid("a hub URL may carry no query or fragment");
      }
      return parseHf(
        `${resolve[1]}/${decodeURIComponent(resolve[3]!)}`,
        decodeURIComponent(resolve[2]!),
        invalid,
      );
    }
    const segments = u.pathname.split("/");
    let fileName: string;
    try {
      fileName = decodeURIComponent(segments[segments.length - 1] ?? "");
    } catch {
      throw invalid("its path is not valid percent-encoding");
    }
    if (!fileName) throw invalid("it names no file (it ends in /)");
    checkFilePath(fileName, shown(raw));
    const sha = (opts.sha256 ?? "").trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(sha)) {
      throw invalid("a URL outside the hub needs its sha256 (--sha256 HEX, 64 hex digits)");
    }
    return { kind: "url", url: u.href, fileName, sha256: sha };
  }
  if (raw.startsWith("/")) {
    if (raw.split("/").includes("..")) throw invalid("a node path may not contain '..'");
    return { kind: "local", path: raw.replace(/\/+$/, "") || "/" };
  }
  throw invalid("expected hf:org/repo[/file], an http(s) URL, or an absolute path on the node");
}

function parseHf(
  rest: string,
  revision: string,
  invalid: (d: string) => AppError,
): ParsedSource {
  if (/[?#]/.test(rest)) throw invalid("an hf: source takes no ?query or #fragment");
  const parts = rest.split("/");
  const [org, name, ...file] = parts;
  if (!org || !name || !repoPart.test(org) || !repoPart.test(name) || /\.\./.test(org + name)) {
    throw invalid("expected hf:org/repo or hf:org/repo/path/to/file");
  }
  if (!/^[\w.\-/]{1,200}$/.test(revision) || revision.includes("..")) {
    throw invalid(`'${revision}' is not a revision`);
  }
  const path = file.length ? file.join("/") : null;
  if (path !== null) checkFilePath(path, `hf:${rest}`);
  return { kind: "hf", repo: `${org}/${name}`, revision, path };
}

/** A source as it may appear in messages: a URL loses credentials, query and fragment. */
export function shown(raw: string): string {
  if (!/^https?:\/\//i.test(raw)) return raw;
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(an unparseable URL)";
  }
}
