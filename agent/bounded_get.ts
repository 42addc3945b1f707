/**
 * A GET to an engine that cannot hang or flood the agent: the whole exchange is time-boxed and the
 * body is read only up to a size. Any failure is `undefined`, because for a probe "did not answer"
 * is the only useful fact.
 */
export interface BoundedResponse {
  readonly status: number;
  readonly body: string;
  /** The body was longer than allowed and was cut. */
  readonly truncated: boolean;
}

export async function boundedGet(
  fetchFn: typeof fetch,
  url: string,
  opts: { apiKey?: string; timeoutMs: number; maxBytes: number },
): Promise<BoundedResponse | undefined> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
  try {
    const headers: Record<string, string> = {};
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    const res = await fetchFn(url, { headers, signal: abort.signal });
    if (!res.body) return { status: res.status, body: "", truncated: false };
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    let truncated = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = opts.maxBytes - size;
      if (value.byteLength > room) {
        chunks.push(value.subarray(0, room));
        truncated = true;
        await reader.cancel();
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.byteLength;
    }
    return { status: res.status, body: new TextDecoder().decode(bytes), truncated };
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
