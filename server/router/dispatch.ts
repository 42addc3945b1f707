/**
 * The one way a request reaches an engine: given an OpenAI-shaped body for an engine path, find
 * the model and its routing profile, wait for room if every replica is busy, pick a replica,
 * relay, try another endpoint (or a fallback model) when one fails before the first byte, and
 * record usage. Routes for other API dialects (Anthropic's /v1/messages) translate to an OpenAI
 * body, call this, and translate the answer back.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { AppDeps } from "../deps.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelEntry } from "./catalog.ts";
import { choose, hasUsable } from "./choose.ts";
import { profileHeader, resolveProfile } from "./picker.ts";
import { requireModel } from "./read_body.ts";
import { passOn, relay, type RelayOutcome } from "./relay.ts";
import type { Replica } from "./replicas.ts";
import { prefixBlocks, sessionKey, tenantSeed } from "./request_keys.ts";
import { estimateTokens } from "../accounting/admission.ts";
import { genAiParams } from "../observe/genai.ts";
import type { AnswerMeter } from "../observe/answer_meter.ts";

export type EnginePath = "/chat/completions" | "/completions" | "/embeddings" | "/rerank";

export interface DispatchOptions {
  /** Overrides the profile header (a dialect route may know better). */
  profile?: string;
  /**
   * Given by a route that sends the relayed answer to the client as it is (not translated): the
   * relay then reports the answer's end and size to the access log itself.
   */
  meter?: AnswerMeter;
  /** The bytes `body` was parsed from, sent as they are when the body goes on unchanged. */
  rawBody?: Uint8Array<ArrayBuffer>;
}

export async function dispatch(
  deps: AppDeps,
  c: Context<AppEnv>,
  path: EnginePath,
  body: Record<string, unknown>,
  opts: DispatchOptions = {},
): Promise<Response> {
  const started = performance.now();
  const model = requireModel(body);
  const entry = deps.catalog.get(model);
  if (!entry) throw new AppError("model_not_found", { model }, "model");
  deps.models?.check(entry, body);
  c.set("model", model);
  c.set("genAi", genAiParams(body));
  const profile = resolveProfile(opts.profile ?? c.req.header(profileHeader), entry.routingProfile);
  const { routing, replicas: table } = deps;
  const tenant = tenantSeed(c.get("apiKey"));
  const session = profile === "chat"
    ? sessionKey(c.req.header("x-session-id"), body, tenant)
    : undefined;
  const blocks = path === "/embeddings" || path === "/rerank"
    ? []
    : prefixBlocks(body, routing.settings.prefix, tenant);
  const prefixReplicaId = blocks.length ? routing.prefixIndex.lookup(blocks)?.replicaId : undefined;
  const stream = body.stream === true;
  const signal = c.env?.shutdownCut
    ? AbortSignal.any([c.req.raw.signal, c.env.shutdownCut])
    : c.req.raw.signal;
  const chain = [entry, ...fallbackEntries(deps, entry)];
  const tried = new Set<Replica>();
  const at = deps.clock.now();
  const requestId = c.get("requestId");
  const keyId = c.get("apiKey").id;
  let queueMs = 0;
  // Allowed models, rate limits and budgets, all in memory, before any routing; settled (token
  // estimate corrected, cost charged up the tree) exactly once, when the request is recorded.
  const admitted = deps.people.admission.admit({
    key: c.get("apiKey"),
    model,
    estimate: estimateTokens(body),
  });
  if (!admitted.ok) {
    const r = admitted.refusal;
    if (r) {
      deps.metrics?.refusal(r.kind, refusalLevel[r.scope.kind]);
      // One notification per episode: the notifier opens it once and closes it when it clears.
      if (r.kind === "budget") deps.notifier?.budgetReached(r.scope.kind, r.label);
    }
    throw admitted.error;
  }

  const record = (o: RelayOutcome | undefined, status: number, served?: ModelEntry, r?: Replica) =>
    deps.usage.record({
      requestId,
      at,
      keyId,
      model,
      endpoint: path,
      promptTokens: o?.promptTokens ?? 0,
      completionTokens: o?.completionTokens ?? 0,
      cachedTokens: o?.cachedTokens ?? 0,
      costMicros: deps.people.admission.settle({
        ticket: admitted.ticket,
        // Priced at the model that served; nothing served costs nothing.
        model: served?.name ?? model,
        usage: o ?? { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
      }),
      status,
      latencyMs: Math.round(performance.now() - started),
      ttftMs: o?.ttftMs ?? null,
      stream,
      servedModel: served?.name ?? null,
      queueMs,
      replicaId: r?.id ?? null,
      profile,
    });
  const pickNow = (): [ModelEntry, Replica] | undefined => {
    const now = deps.clock.now();
    for (const m of chain) {
      const r = choose({
        table,
        model: m.name,
        profile,
        sessionKey: session,
        sessions: routing.sessions,
        prefixReplicaId,
        tried,
        now,
      });
      if (r) return [m, r];
    }
    return undefined;
  };

  let picked = pickNow();
  if (!picked && deps.models && !chain.some((m) => hasUsable(table, m.name, tried))) {
    // No replica at all (an on-demand model, or one still starting): wait for the reconciler.
    await deps.models.awaitReplica(entry, signal);
    picked = pickNow();
  }
  if (!picked) {
    // Nothing has room now: wait in the queue of the first model that has a replica at all.
    const waitFor = chain.find((m) => hasUsable(table, m.name, tried));
    if (!waitFor) {
      record(undefined, 503);
      throw new AppError("model_unavailable", { model });
    }
    const lane = stream || profile === "chat" ? "interactive" : "batch";
    try {
      const take = () => {
        const r = choose({
          table,
          model: waitFor.name,
          profile,
          sessionKey: session,
          sessions: routing.sessions,
          prefixReplicaId,
          tried,
          now: deps.clock.now(),
        });
        // Taken inside the grant, so no other waiter can take the same room.
        if (r) r.inFlight++;
        return r;
      };
      const r = await routing.admission.admit(waitFor.name, lane, take, signal);
      r.inFlight--;
      picked = [waitFor, r];
    } catch (e) {
      queueMs = Math.round(performance.now() - started);
      if (e instanceof AppError) {
        record(undefined, 503);
        throw e;
      }
      record(undefined, 499);
      return new Response(null, { status: 499 });
    }
    queueMs = Math.round(performance.now() - started);
  }

  let last: { status: number; detail: string; answer?: { text: string; contentType: string } } = {
    status: 0,
    detail: "the engine could not be reached",
  };
  let lastServed = entry;
  for (let attempt = 0; picked && attempt < routing.settings.maxAttempts; attempt++) {
    const [served, replica] = picked;
    tried.add(replica);
    replica.inFlight++;
    replica.lastRequestAt = deps.clock.now();
    replica.breaker.take();
    const relayStarted = performance.now();
    const held = path === "/chat/completions" || path === "/completions"
      ? await routing.slotKeeper.claim(replica, served.engine, session)
      : undefined;
    const unchanged = served === entry && !served.upstreamModel && model === entry.name && !held;
    const result = await relay({
      upstream: routing.upstream,
      replica,
      path,
      body: unchanged ? body : {
        ...body,
        model: served.upstreamModel ?? served.name,
        ...(held ? { id_slot: held.slot } : {}),
      },
      ...(unchanged && opts.rawBody ? { rawBody: opts.rawBody } : {}),
      clientSignal: signal,
      firstByteTimeoutMs: deps.limits.firstByteTimeoutMs,
      idleTimeoutMs: routing.settings.streamIdleTimeoutMs,
      retryable: replica.external ? (s) => s >= 500 || s === 429 || s === 401 : (s) => s >= 500,
      servedModel: served.name,
      onDone: (o) => {
        opts.meter?.end(o.bytesOut);
        held?.release();
        release(deps, replica);
        if (o.status === 499) replica.breaker.release();
        else if (o.status >= 500) replica.breaker.failure();
        else replica.breaker.success();
        if (stream && o.status === 200 && o.ttftMs !== null) {
          replica.ttft.add(o.ttftMs, deps.clock.now());
        }
        // The client's view: time to first token counts the queue and earlier attempts.
        const offset = Math.round(relayStarted - started);
        record(
          { ...o, ttftMs: o.ttftMs === null ? null : o.ttftMs + offset },
          o.status,
          served,
          replica,
        );
      },
    });
    if (result.kind === "answered") {
      opts.meter?.claim();
      if (blocks.length) routing.prefixIndex.record(blocks, replica.id);
      for (const [k, v] of Object.entries(admitted.headers)) result.response.headers.set(k, v);
      return result.response;
    }
    held?.release();
    release(deps, replica);
    if (replica.external && (result.status === 429 || result.status === 401)) {
      replica.breaker.trip();
      if (result.status === 401) routing.keyRefused(replica.id);
    } else {
      replica.breaker.failure();
    }
    // An outside provider's error text can quote part of the key it refused: never passed on.
    last = replica.external ? { status: result.status, detail: result.detail } : result;
    lastServed = served;
    if (signal.aborted) break;
    picked = pickNow();
  }
  if (signal.aborted) {
    record(undefined, 499);
    return new Response(null, { status: 499 });
  }
  const status = last.status || 502;
  record(undefined, status, lastServed);
  if (last.answer) return passOn(lastServed.name, last.answer, status, lastServed.name);
  if (status === 429) {
    throw new AppError("provider_rate_limited", { model }, null, { retryAfterS: 1 });
  }
  throw new AppError("engine_error", { model, detail: last.detail });
}

function release(deps: AppDeps, r: Replica): void {
  r.inFlight--;
  deps.routing.admission.wake(r.model);
}

function fallbackEntries(deps: AppDeps, entry: ModelEntry): ModelEntry[] {
  if (entry.fallbacks.length === 0) return [];
  const out: ModelEntry[] = [];
  for (const name of entry.fallbacks) {
    const m = deps.catalog.get(name);
    if (m && m !== entry) out.push(m);
  }
  return out;
}

/** The metrics' closed list of levels, from the tenancy's scope kinds. */
const refusalLevel = {
  global: "global",
  org: "org",
  team: "team",
  project: "project",
  person: "user",
  key: "key",
} as const;
