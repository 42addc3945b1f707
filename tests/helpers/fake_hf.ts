/**
 * A fake Hugging Face hub: a real HTTP server on loopback with the routes llmgw uses — a
 * repository's revision, its file tree (LFS files carry their sha256 as `lfs.oid`), and
 * `resolve/{commit}/{path}` answering with a redirect to a CDN-like path that honours `Range`.
 * Tests can change a file after it was pinned, cut a transfer after N bytes once, and read
 * every request it saw.
 */
import { createHash } from "node:crypto";

export interface SeenRequest {
  method: string;
  path: string;
  range: string | null;
  authorization: string | null;
}

interface Repo {
  commit: string;
  files: Map<string, Uint8Array>;
  /** The sums and sizes published at `commit`; `setFile` changes the bytes, not these. */
  published: Map<string, { sha256: string; size: number; lfs: boolean }>;
}

export interface FakeHub {
  url: string;
  requests: SeenRequest[];
  /** Creates or updates a repository at a new commit; returns the commit. */
  putRepo(repo: string, files: Record<string, Uint8Array>): string;
  /** Serves other bytes for a file at the same commit (what a tampered CDN would do). */
  setFile(repo: string, path: string, bytes: Uint8Array): void;
  /** The next CDN answer for `path` is cut after `afterBytes` bytes. */
  dropOnce(path: string, afterBytes: number): void;
  /** Requests seen for a file's bytes (resolve or CDN), by path suffix. */
  fileRequests(path: string): SeenRequest[];
  close(): Promise<void>;
}

/** Deterministic bytes: the same length and seed give the same file. */
export function generatedBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

const lfsPattern = /\.(safetensors|gguf|bin|pt|pth|ckpt|pkl|pt2|model)$/;

export function startFakeHub(
  opts: { requireToken?: string; treePageSize?: number; chunkBytes?: number } = {},
): FakeHub {
  const repos = new Map<string, Repo>();
  const drops = new Map<string, number>();
  const requests: SeenRequest[] = [];
  const chunk = opts.chunkBytes ?? 64 * 1024;
  let commits = 0;

  const handler = (req: Request): Response => {
    const url = new URL(req.url);
    const path = decodeURIComponent(url.pathname);
    requests.push({
      method: req.method,
      path: url.pathname + url.search,
      range: req.headers.get("range"),
      authorization: req.headers.get("authorization"),
    });
    if (opts.requireToken && req.headers.get("authorization") !== `Bearer ${opts.requireToken}`) {
      if (!path.startsWith("/cdn/")) {
        return Response.json({ error: "Unauthorized" }, { status: 401 });
      }
    }
    let m = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(path);
    if (m) {
      const repo = repos.get(m[1]!);
      if (!repo || (m[2] !== "main" && m[2] !== repo.commit)) {
        return Response.json({ error: "Repository not found" }, { status: 404 });
      }
      return Response.json({ id: m[1], sha: repo.commit, siblings: [] });
    }
    m = /^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)$/.exec(path);
    if (m) {
      const repo = repos.get(m[1]!);
      if (!repo || m[2] !== repo.commit) {
        return Response.json({ error: "Revision not found" }, { status: 404 });
      }
      const entries = treeOf(repo);
      const size = opts.treePageSize ?? 1000;
      const cursor = Number(url.searchParams.get("cursor") ?? 0);
      const page = entries.slice(cursor, cursor + size);
      const headers = new Headers();
      if (cursor + size < entries.length) {
        const next = new URL(url);
        next.searchParams.set("cursor", String(cursor + size));
        headers.set("link", `<${next}>; rel="next"`);
      }
      return Response.json(page, { headers });
    }
    m = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    if (m) {
      const repo = repos.get(m[1]!);
      if (!repo || m[2] !== repo.commit || !repo.files.has(m[3]!)) {
        return new Response("Entry not found", { status: 404 });
      }
      return new Response(null, {
        status: 302,
        headers: { location: `/cdn/${m[1]}/${m[2]}/${encodeURI(m[3]!)}`, "x-repo-commit": m[2]! },
      });
    }
    m = /^\/cdn\/([^/]+\/[^/]+)\/([^/]+)\/(.+)$/.exec(path);
    if (m) {
      const bytes = repos.get(m[1]!)?.files.get(m[3]!);
      if (!bytes) return new Response("Not found", { status: 404 });
      return serveBytes(req, bytes, m[3]!);
    }
    return new Response("Not found", { status: 404 });
  };

  const serveBytes = (req: Request, bytes: Uint8Array, name: string): Response => {
    let start = 0;
    const range = req.headers.get("range");
    if (range) {
      const r = /^bytes=(\d+)-$/.exec(range);
      if (!r || Number(r[1]) >= bytes.length) {
        return new Response(null, {
          status: 416,
          headers: { "content-range": `bytes */${bytes.length}` },
        });
      }
      start = Number(r[1]);
    }
    const body = bytes.subarray(start);
    const dropAfter = drops.get(name);
    drops.delete(name);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (dropAfter !== undefined && sent >= dropAfter) {
          controller.error(new Error("connection dropped by the fake hub"));
          return;
        }
        const limit = dropAfter !== undefined ? Math.min(body.length, dropAfter) : body.length;
        const end = Math.min(limit, sent + chunk);
        if (sent >= body.length) return controller.close();
        controller.enqueue(body.slice(sent, end));
        sent = end;
      },
    });
    const headers: Record<string, string> = {
      "content-length": String(body.length),
      "accept-ranges": "bytes",
      "content-type": "application/octet-stream",
    };
    if (range) headers["content-range"] = `bytes ${start}-${bytes.length - 1}/${bytes.length}`;
    return new Response(req.method === "HEAD" ? null : stream, {
      status: range ? 206 : 200,
      headers,
    });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    requests,
    putRepo(name, files) {
      const commit = createHash("sha1").update(`${name}:${++commits}`).digest("hex");
      const repo: Repo = { commit, files: new Map(), published: new Map() };
      for (const [p, bytes] of Object.entries(files)) {
        repo.files.set(p, bytes);
        repo.published.set(p, {
          sha256: sha256Hex(bytes),
          size: bytes.length,
          lfs: lfsPattern.test(p),
        });
      }
      repos.set(name, repo);
      return commit;
    },
    setFile(name, path, bytes) {
      repos.get(name)!.files.set(path, bytes);
    },
    dropOnce(path, afterBytes) {
      drops.set(path, afterBytes);
    },
    fileRequests(path) {
      return requests.filter((r) =>
        (r.path.includes("/resolve/") || r.path.startsWith("/cdn/")) &&
        decodeURIComponent(r.path).endsWith(`/${path}`)
      );
    },
    close: () => server.shutdown(),
  };
}

function treeOf(repo: Repo): unknown[] {
  const dirs = new Set<string>();
  const out: unknown[] = [];
  for (const [p, info] of repo.published) {
    const parts = p.split("/");
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
    const blob = createHash("sha1").update(`blob ${info.size}\0`).update(repo.files.get(p)!)
      .digest("hex");
    out.push({
      type: "file",
      oid: blob,
      size: info.size,
      path: p,
      ...(info.lfs ? { lfs: { oid: info.sha256, size: info.size, pointerSize: 134 } } : {}),
    });
  }
  for (const d of dirs) out.push({ type: "directory", oid: "0".repeat(40), size: 0, path: d });
  return out.sort((a, b) =>
    String((a as { path: string }).path).localeCompare((b as { path: string }).path)
  );
}
