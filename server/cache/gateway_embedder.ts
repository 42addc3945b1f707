/**
 * Embeds a question for the similar-answer lookup through the router's own path (dispatch), in
 * process: no HTTP to itself, no key of its own to keep. The request is the gateway's own, as a
 * judge's is: recorded under the key id `llmgw-gateway`, on no tenant's limits or bill.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import { newUlid } from "../../core/ulid.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";
import { isRecord } from "../router/json_fields.ts";
import { unitVector } from "./answer_cache.ts";
import type { Embed } from "./cache_step.ts";

/** The gateway's own account on usage rows. */
export const gatewayKey: ApiKeyInfo = {
  id: "llmgw-gateway",
  name: "the gateway's own requests",
  prefix: "",
  userId: null,
  projectId: null,
  createdAt: 0,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
};

/** `deps` is read per call: dispatch's deps hold this embedder, so they are made after it. */
export function gatewayEmbedder(deps: () => DispatchDeps): Embed {
  const app = new Hono<AppEnv>();
  app.post("/embed", async (c) => {
    c.set("requestId", newUlid());
    c.set("apiKey", gatewayKey);
    const body = await c.req.json() as Record<string, unknown>;
    return await dispatch(deps(), c, "/embeddings", body, { ownAccount: true });
  });
  // Any failure is only a lookup that finds nothing: the request goes on to a replica.
  app.onError(() => new Response(null, { status: 502 }));
  return async (model, text, signal) => {
    const res = await Promise.resolve(app.request("/embed", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model, input: text }),
      signal,
    })).catch(() => undefined);
    if (!res?.ok) {
      await res?.body?.cancel();
      return undefined;
    }
    return vectorOf(await res.json().catch(() => undefined));
  };
}

function vectorOf(json: unknown): Float32Array | undefined {
  const first = isRecord(json) && Array.isArray(json.data) ? json.data[0] : undefined;
  const v = isRecord(first) ? first.embedding : undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === "number")) return undefined;
  return unitVector(v as number[]);
}
