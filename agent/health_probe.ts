/**
 * One readiness check of an engine: GET its health path with its key (an engine that refuses the
 * key must not read as ready), judged by its adapter. The body is read leniently, at most 64 KiB.
 */
import { boundedGet } from "./bounded_get.ts";

export function healthProbe(
  fetchFn: typeof fetch,
  url: string,
  apiKey: string,
  isReady: (status: number, body: string) => boolean,
): (timeoutMs: number) => Promise<boolean> {
  return async (timeoutMs) => {
    const res = await boundedGet(fetchFn, url, { apiKey, timeoutMs, maxBytes: 64 * 1024 });
    return res !== undefined && isReady(res.status, res.body);
  };
}
