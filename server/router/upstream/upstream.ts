/**
 * How the relay reaches an engine or an outside provider: one POST, an answer read as it comes.
 * Engines on `http:` addresses go through llmgw's own kept-alive HTTP/1.1 connections (the hot
 * path, see http1_pool.ts); anything else (an outside provider over HTTPS) through `fetch`.
 */
import { Http1Pool } from "./http1_pool.ts";
import { readText } from "./read_text.ts";

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

/** `http:` through kept-alive connections of its own, the rest through `fetch`. */
export function engineUpstream(pool = new Http1Pool()): Upstream {
  return {
    post: (req) =>
      req.url.startsWith("http:") ? pool.request({ method: "POST", ...req }) : fetchPost(req),
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
  const read = async () => {
    if (!reader) return null;
    const r = await reader.read(buf);
    if (r.done) return null;
    buf = new Uint8Array(r.value.buffer as ArrayBuffer);
    return r.value;
  };
  return {
    status: res.status,
    header: (name) => res.headers.get(name) ?? undefined,
    read,
    text: () => readText(read),
    cancel: () => void reader?.cancel().catch(() => {}),
  };
}
