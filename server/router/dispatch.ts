/**
 * The one way a request reaches an engine: given an OpenAI-shaped body for an engine path, find
 * the model, pick a replica, relay, and record usage. Routes for other API dialects (Anthropic's
 * /v1/messages) translate to an OpenAI body, call this, and translate the answer back.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { requireModel } from "./read_body.ts";
import { relay } from "./relay.ts";
import { estimateTokens } from "../accounting/admission.ts";

export type EnginePath = "/chat/completions" | "/completions" | "/embeddings";

export async function dispatch(
  deps: AppDeps,
  c: Context<AppEnv>,
  path: EnginePath,
  body: Record<string, unknown>,
): Promise<Response> {
  const model = requireModel(body);
  if (!deps.catalog.get(model)) throw new AppError("model_not_found", { model }, "model");
  // people: allowed models, rate limits and budgets, in memory, before routing; settled in onDone.
  const admitted = deps.people.admission.admit({
    key: c.get("apiKey"),
    model,
    estimate: estimateTokens(body),
  });
  if (!admitted.ok) throw admitted.error;
  const replica = deps.replicas.pick(model);
  if (!replica) throw new AppError("model_unavailable", { model });
  const requestId = c.get("requestId");
  const keyId = c.get("apiKey").id;
  const at = deps.clock.now();
  const res = await relay({
    replica,
    path: `/v1${path}`,
    body,
    clientSignal: c.req.raw.signal,
    firstByteTimeoutMs: deps.limits.firstByteTimeoutMs,
    clock: deps.clock,
    onDone: (o) =>
      deps.usage.record({
        requestId,
        at,
        keyId,
        model,
        endpoint: path,
        promptTokens: o.promptTokens,
        completionTokens: o.completionTokens,
        status: o.status,
        latencyMs: o.latencyMs,
        ttftMs: o.ttftMs,
        stream: body.stream === true,
        // people: the cost, charged to every budget above the key.
        costMicros: deps.people.admission.settle({ ticket: admitted.ticket, model, usage: o }),
      }),
  });
  for (const [k, v] of Object.entries(admitted.headers)) res.headers.set(k, v); // people
  return res;
}
