/**
 * Texts to vectors through the gateway's own /v1/embeddings path: the same dispatch() as a
 * client's request, with the caller's key, so an import is routed, limited, budgeted and on the
 * usage rows like any other work of theirs. A busy engine (a 429 or a 503: queue full, rate
 * limit, a replica still starting) is waited out, as long as its Retry-After says, until
 * `busyWaitMs` has passed; any other refusal ends the call with the engine's own words.
 */
import { Hono } from "hono";
import { AppError } from "../../core/errors.ts";
import { newUlid } from "../../core/ulid.ts";
import type { AppEnv } from "../app_env.ts";
import { errorResponse } from "../errors.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";

export interface Embedder {
  /** One vector per text, in order. */
  embed(model: string, texts: string[], caller: ApiKeyInfo): Promise<number[][]>;
}

export class EmbeddingFailed extends Error {
  override name = "EmbeddingFailed";
}

export function dispatchEmbedder(
  dispatchDeps: () => DispatchDeps,
  opts: { busyWaitMs?: number; sleep?: (ms: number) => Promise<void> } = {},
): Embedder {
  const busyWaitMs = opts.busyWaitMs ?? 10 * 60_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const jobs = new Map<string, { key: ApiKeyInfo; body: Record<string, unknown> }>();
  // dispatch() reads its request from a Hono context, so each call gets one of its own.
  const inner = new Hono<AppEnv>();
  inner.post("/embed", async (c) => {
    const job = jobs.get(c.req.header("x-job") ?? "");
    if (!job) throw new AppError("not_found", { path: "embedding job" });
    c.set("requestId", newUlid());
    c.set("apiKey", job.key);
    return await dispatch(dispatchDeps(), c, "/embeddings", job.body, { profile: "batch" });
  });
  inner.onError((err, c) =>
    errorResponse(
      err instanceof AppError ? err : new AppError("internal_error", { requestId: "" }),
      c.get("requestId"),
    )
  );

  const once = async (key: ApiKeyInfo, body: Record<string, unknown>) => {
    const token = newUlid();
    jobs.set(token, { key, body });
    try {
      return await inner.request("/embed", { method: "POST", headers: { "x-job": token } });
    } finally {
      jobs.delete(token);
    }
  };

  return {
    async embed(model, texts, caller) {
      const body = { model, input: texts, encoding_format: "float" };
      const started = Date.now();
      for (let attempt = 0;; attempt++) {
        const res = await once(caller, body);
        const text = await res.text();
        if (res.ok) return vectorsOf(text, texts.length);
        const busy = res.status === 429 || res.status === 503;
        if (!busy || Date.now() - started > busyWaitMs) {
          throw new EmbeddingFailed(`${model} answered ${res.status}: ${messageOf(text)}`);
        }
        const retry = Number(res.headers.get("retry-after"));
        await sleep(
          Number.isFinite(retry) && retry > 0
            ? Math.min(retry * 1000, 30_000)
            : Math.min(250 * 2 ** attempt, 5_000),
        );
      }
    },
  };
}

function vectorsOf(text: string, n: number): number[][] {
  let body: { data?: { index?: number; embedding?: unknown }[] };
  try {
    body = JSON.parse(text);
  } catch {
    throw new EmbeddingFailed("the embedding answer is not JSON");
  }
  const out: number[][] = new Array(n);
  for (const [i, d] of (body.data ?? []).entries()) {
    const at = typeof d.index === "number" ? d.index : i;
    if (!Array.isArray(d.embedding)) throw new EmbeddingFailed("an embedding is not a list");
    out[at] = d.embedding as number[];
  }
  if (out.filter(Array.isArray).length !== n) {
    throw new EmbeddingFailed(`asked for ${n} vectors, got ${body.data?.length ?? 0}`);
  }
  return out;
}

function messageOf(text: string): string {
  try {
    const m = JSON.parse(text)?.error?.message;
    if (typeof m === "string") return m.slice(0, 300);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 300);
}
