/**
 * How the relay reaches an engine or an outside provider: one POST, an answer read as it comes.
 * Engines on `http:` addresses go through llmgw's own kept-alive HTTP/1.1 connections (the hot
 * path, see http1_pool.ts); anything else (an outside provider over HTTPS) through `fetch`.
 */
import { Http1Pool } from "./http1_pool.ts";

export interface UpstreamAnswer {
  readonly status: number;
  header(name: string): string | undefined;
  /** The next piece of the body, or null at its end; valid until the next read. */
  read(): Promise<Uint8Array | null>;
  text(): Promise<string>;
  /** Gives up on the rest of the answer. */
  cancel(): void;
}

export interface UpstreamPost {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer>;
  /** Aborting fails the request, or the read in progress, with the signal's reason. */
  signal: AbortSignal;
}

export interface Upstream {
  post(req: UpstreamPost): Promise<UpstreamAnswer>;
  /** Closes kept-alive connections. */
  close(): void;
}

/** Every request through `fetch`. */
export function fetchUpstream(): Upstream {
  return { post: fetchPost, close: () => {} };
}

/** `http:` through kept-alive connections of its own, the rest through `fetch`. */
export function engineUpstream(pool = new Http1Pool()): Upstream {
  return {
    async post(req) {
      if (!req.url.startsWith("http:")) return await fetchPost(req);
      const res = await pool.request({ method: "POST", ...req });
      return {
        status: res.status,
        header: (name) => res.headers.get(name),
        read: () => res.read(),
        text: () => res.text(),
        cancel: () => res.cancel(),
      };
    },
    close: () => pool.close(),
  };
}

async function fetchPost(req: UpstreamPost): Promise<UpstreamAnswer> {
  const res = await fetch(req.url, {
    method: "POST",
    headers: req.headers,
    body: req.body,
    signal: req.signal,
  });
  // BYOB with one reused buffer: the default reader makes fetch allocate and zero 64 KiB per read.
  const reader = res.body?.getReader({ mode: "byob" });
  let buf = new Uint8Array(16 * 1024);
  return {
    status: res.status,
    header: (name) => res.headers.get(name) ?? undefined,
    async read() {
      if (!reader) return null;
      const r = await reader.read(buf);
      if (r.done) return null;
      buf = new Uint8Array(r.value.buffer as ArrayBuffer);
      return r.value;
    },
    async text() {
      if (!reader) return "";
      const decoder = new TextDecoder();
      let out = "";
      for (let r = await reader.read(buf); !r.done; r = await reader.read(buf)) {
        out += decoder.decode(r.value, { stream: true });
        buf = new Uint8Array(r.value.buffer as ArrayBuffer);
      }
      return out + decoder.decode();
    },
    cancel: () => void reader?.cancel().catch(() => {}),
  };
}
