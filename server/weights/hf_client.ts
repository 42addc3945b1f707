/**
 * The few Hugging Face API calls pinning needs: a revision's commit, the commit's file tree
 * (LFS files carry their sha256), and a small file's bytes. The endpoint is a setting
 * (`HF_ENDPOINT`); a token, when there is one, is sent to the endpoint and nowhere else, and
 * never appears in a message.
 */
import { createHash } from "node:crypto";

export interface HubConfig {
  endpoint: string;
  token?: string;
  fetch: typeof fetch;
}

export interface TreeEntry {
  type: "file" | "directory";
  path: string;
  size: number;
  /** The git blob sha1. */
  oid: string;
  lfs?: { oid: string; size: number };
}

/** A hub answer that says why it could not help, in words for the person adding the model. */
export class HubError extends Error {
  override name = "HubError";
}

/** Files that are not in LFS are small by git's rules; anything bigger is refused here. */
const smallFileLimit = 64 * 1024 * 1024;

export class HfClient {
  readonly endpoint: string;
  constructor(private readonly cfg: HubConfig) {
    this.endpoint = cfg.endpoint.replace(/\/+$/, "");
  }

  async commitOf(repo: string, revision: string): Promise<string> {
    const body = await this.#json(
      `/api/models/${repo}/revision/${encodeURIComponent(revision)}`,
      `${repo}@${revision}`,
    );
    const sha = (body as { sha?: unknown }).sha;
    if (typeof sha !== "string" || !/^[0-9a-f]{40}$/.test(sha)) {
      throw new HubError(`the hub gave no commit for ${repo}@${revision}`);
    }
    return sha;
  }

  async tree(repo: string, commit: string): Promise<TreeEntry[]> {
    const out: TreeEntry[] = [];
    let next: string | null = `/api/models/${repo}/tree/${commit}?recursive=true`;
    for (let page = 0; next && page < 1000; page++) {
      const res = await this.#get(next, `${repo}@${commit.slice(0, 12)}`);
      const body = await res.json() as unknown;
      if (!Array.isArray(body)) throw new HubError("the hub's file tree is not a list");
      for (const e of body as TreeEntry[]) {
        if (typeof e?.path === "string" && (e.type === "file" || e.type === "directory")) {
          out.push(e);
        }
      }
      next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get("link") ?? "")?.[1] ?? null;
    }
    return out;
  }

  /** sha256 and size of a file that is not in LFS (config, tokenizer), by fetching it. */
  async hashSmallFile(
    repo: string,
    commit: string,
    path: string,
  ): Promise<{ sha256: string; size: number }> {
    const bytes = await this.readSmallFile(repo, commit, path);
    return { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.byteLength };
  }

  /** The bytes of a small file (config.json), refused past the small-file limit. */
  async readSmallFile(repo: string, commit: string, path: string): Promise<Uint8Array> {
    const rel = `/${repo}/resolve/${commit}/${path.split("/").map(encodeURIComponent).join("/")}`;
    const res = await this.#get(rel, `${repo}/${path}`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body ?? new ReadableStream<Uint8Array>()) {
      size += chunk.byteLength;
      if (size > smallFileLimit) {
        await res.body?.cancel();
        throw new HubError(`${path} is not in LFS yet larger than ${smallFileLimit} bytes`);
      }
      chunks.push(chunk);
    }
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }

  async #json(path: string, what: string): Promise<unknown> {
    const res = await this.#get(path, what);
    try {
      return await res.json();
    } catch {
      throw new HubError(`the hub's answer for ${what} is not JSON`);
    }
  }

  async #get(pathOrUrl: string, what: string): Promise<Response> {
    const url = pathOrUrl.startsWith("http") ? pathOrUrl : `${this.endpoint}${pathOrUrl}`;
    const sameOrigin = new URL(url).origin === new URL(this.endpoint).origin;
    const headers: Record<string, string> = {};
    if (this.cfg.token && sameOrigin) headers.authorization = `Bearer ${this.cfg.token}`;
    let res: Response;
    try {
      res = await this.cfg.fetch(url, { headers, signal: AbortSignal.timeout(60_000) });
    } catch (e) {
      throw new HubError(`cannot reach ${this.endpoint}: ${(e as Error).message}`);
    }
    if (res.ok) return res;
    await res.body?.cancel();
    if (res.status === 401 || res.status === 403) {
      throw new HubError(
        `${what} is private or gated (HTTP ${res.status}); ${
          this.cfg.token ? "the token given has no access" : "set weights.hf_token_file"
        }`,
      );
    }
    if (res.status === 404) throw new HubError(`${what} does not exist on ${this.endpoint}`);
    throw new HubError(`the hub answered HTTP ${res.status} for ${what}`);
  }
}
