/**
 * The one way a request reaches an engine: given an OpenAI-shaped body for an engine path, find
 * the model and its routing profile, wait for room if every replica is busy, pick a replica,
 * relay, try another endpoint (or a fallback model) when one fails before the first byte, and
 * record usage. Routes for other API dialects (Anthropic's /v1/messages) translate to an OpenAI
 * body, call this, and translate the answer back.
 */
import type { Context } from "hono";
import type { Clock } from "../../core/clock.ts";
import type { AppEnv } from "../app_env.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelGate } from "../models/model_gate.ts";
import type { GatewayMetrics } from "../observe/gateway_metrics.ts";
import type { Notifier } from "../notify/notifier.ts";
import type { PeopleServices } from "../tenancy/services.ts";
import type { UsageSink } from "../usage/recorder.ts";
import type { ModelCatalog, ModelEntry } from "./catalog.ts";
import { choose, hasUsable } from "./choose.ts";
import { type Profile, resolveProfile } from "./picker.ts";
import { passOn, relay, type RelayOutcome, type RelayResult } from "./relay.ts";
import type { Replica, ReplicaTable } from "./replicas.ts";
import type { Routing } from "./routing.ts";
import { prefixBlocks, sessionKey, tenantSeed } from "./request_keys.ts";
import { type Admitted, demandOf } from "../accounting/allowance.ts";
import { estimatePromptTokens } from "../accounting/demand.ts";
import { outputCeiling } from "../models/model_limits.ts";
import { FaultJudge } from "./fault_judge.ts";
import { meetQuirks, refusalTexts } from "./engine_quirks.ts";
import { genAiParams } from "../observe/genai.ts";
import { type GuardDeps, inspectInput } from "../guard/guard.ts";
import type { GuardPass } from "../guard/guard_pass.ts";
import { judgeInput } from "../guard/judge/judge_step.ts";
import type { AnswerCacheStep, AnswerKeeper, CacheLookup } from "../cache/cache_step.ts";
import { cachedResponse } from "../cache/cached_answer.ts";
import { isRecord } from "./json_fields.ts";
import {
  type DispatchOptions,
  type EnginePath,
  type RouteRequest,
  routeRequest,
} from "./route_request.ts";

export type { DispatchOptions, EnginePath, RouteRequest };

/** What the request path uses, and nothing else. */
export interface DispatchDeps {
  catalog: Pick<ModelCatalog, "get">;
  replicas: ReplicaTable;
  routing: Routing;
  /** The catalog's rules and waiting for a replica to start (does nothing without a cluster). */
  models: Pick<ModelGate, "check" | "awaitReplica">;
  /** Allowed models, rate limits and budgets. */
  people: Pick<PeopleServices, "admission">;
  usage: UsageSink;
  metrics: Pick<GatewayMetrics, "refusal">;
  notifier: Pick<Notifier, "budgetReached">;
  clock: Clock;
  /** Read per request: a live setting changes it in place. */
  limits: { readonly firstByteTimeoutMs: number };
  /** The guardrail policies on each key's chain of levels. */
  guard: GuardDeps;
  /** The answer cache: consulted after admission, told of answers that ended well. */
  answers: Pick<AnswerCacheStep, "lookup">;
}

/** One request's way through routing: what was decided once, and what the attempts change. */
interface Attempt {
  readonly req: RouteRequest;
  readonly entry: ModelEntry;
  readonly profile: Profile;
  readonly session: number | undefined;
  /** Where the session sat before this request was placed (then where it was sent). */
  home: string | undefined;
  /** Live sessions per replica as all control planes count them, for a session new to all. */
  residents: Map<string, number> | undefined;
  readonly blocks: number[];
  readonly prefixReplicaId: string | undefined;
  readonly stream: boolean;
  /** The model, then its fallbacks. */
  readonly chain: ModelEntry[];
  readonly tried: Set<Replica>;
  /** The clock's time when the request came (the usage row's `at`). */
  readonly at: number;
  queueMs: number;
  /** The request's guardrails; undefined when no policy applies to its key. */
  readonly guard: GuardPass | undefined;
  /** The answer cache missed: it keeps the answer of the model asked for, if it ends well. */
  keep: AnswerKeeper | undefined;
}

type Picked = [ModelEntry, Replica];
type Ticket = Extract<Admitted, { ok: true }>;
type Failure = { status: number; detail: string; answer?: { text: string; contentType: string } };

export async function dispatch(
  deps: DispatchDeps,
  c: Context<AppEnv>,
  path: EnginePath,
  body: Record<string, unknown>,
  opts: DispatchOptions = {},
): Promise<Response> {
  const routed = routeRequest(c, path, body, opts);
  const entry = catalogEntry(deps, routed);
  const asked = engineReady(entry, routed);
  deps.routing.keyBackoff.check(asked.key.id, asked.model);
  c.set("model", asked.model);
  c.set("genAi", genAiParams(body));
  const [req, guard] = await guardInput(deps, asked);
  const a = planAttempt(deps, req, entry, guard);
  const ticket = await admitTenant(deps, a);
  const cached = await consultCache(deps, a, ticket);
  if (cached) return cached;
  await learnSession(deps, a);
  let picked = pickNow(deps, a) ?? await awaitStarted(deps, a, ticket);
  if (!picked) {
    const queued = await waitInQueue(deps, a, ticket);
    if (queued instanceof Response) return queued;
    picked = queued;
  }
  return await relayAttempts(deps, a, ticket, picked);
}

/** The catalog's entry for the model asked for, and its rules (stopped, max output). */
function catalogEntry(deps: DispatchDeps, req: RouteRequest): ModelEntry {
  const entry = deps.catalog.get(req.model);
  if (!entry) throw new AppError("model_not_found", { model: req.model }, "model");
  deps.models.check(entry, req.body);
  return entry;
}

/**
 * The body as the model's engine can take it (engine_quirks.ts): what it would refuse with a 5xx
 * is a 400 naming the field, what it needs and a client may leave out is filled in.
 */
function engineReady(entry: ModelEntry, req: RouteRequest): RouteRequest {
  const met = meetQuirks(entry.engine, req.path, req.body, { vision: readsImages(entry) });
  if ("refused" in met) {
    throw new AppError("invalid_request", { detail: met.refused.detail }, met.refused.param);
  }
  return met.body === req.body ? req : { ...req, body: met.body, rawBody: undefined };
}

/** A `vision` capability in its definition, or llama.cpp given a projector. */
function readsImages(entry: ModelEntry): boolean {
  const caps = entry.def?.capabilities;
  if (Array.isArray(caps) && caps.includes("vision")) return true;
  return entry.args.some((a) => a === "--mmproj" || a === "-mm" || a.startsWith("--mmproj"));
}

/**
 * The guardrails' input side, before anything is spent on the request: a block is recorded and
 * answered 400 naming the policy and rule; a redaction changes the body the model is sent (and
 * then the client's bytes are not sent as they are).
 */
async function guardInput(
  deps: DispatchDeps,
  req: RouteRequest,
): Promise<[RouteRequest, GuardPass | undefined]> {
  const { body, pass } = await inspectInput(deps.guard, req.key, req.body);
  if (!pass) return [req, undefined];
  await judgeInput(deps.guard.judges, pass, body);
  if (pass.blocked) {
    (req.usage ?? deps.usage).record({
      requestId: req.requestId,
      at: deps.clock.now(),
      keyId: req.key.id,
      model: req.model,
      endpoint: req.path,
      promptTokens: 0,
      completionTokens: 0,
      status: pass.blocked.fail === "closed" ? 503 : 400,
      latencyMs: elapsedMs(req.started),
      ttftMs: null,
      stream: req.body.stream === true,
      servedModel: null,
      guard: pass.usageVerdicts(),
    });
    throw pass.blockError();
  }
  return [body === req.body ? req : { ...req, body, rawBody: undefined }, pass];
}

function planAttempt(
  deps: DispatchDeps,
  req: RouteRequest,
  entry: ModelEntry,
  guard: GuardPass | undefined,
): Attempt {
  const { routing } = deps;
  const { body, path } = req;
  const profile = resolveProfile(req.profileAsked, entry.routingProfile);
  // Seeds both keys, so another tenant's prefix or session id never places this request.
  const tenant = tenantSeed(req.key);
  const blocks = path === "/embeddings" || path === "/rerank"
    ? []
    : prefixBlocks(body, routing.settings.prefix, tenant);
  return {
    req,
    entry,
    profile,
    session: profile === "chat" ? sessionKey(req.sessionId, body, tenant) : undefined,
    home: undefined,
    residents: undefined,
    blocks,
    prefixReplicaId: blocks.length ? routing.prefixIndex.lookup(blocks)?.replicaId : undefined,
    stream: body.stream === true,
    chain: [entry, ...fallbackEntries(deps, entry)],
    tried: new Set<Replica>(),
    at: deps.clock.now(),
    queueMs: 0,
    guard,
    keep: undefined,
  };
}

/**
 * Allowed models, rate limits and budgets, all in memory, before any routing; settled (token
 * estimate corrected, cost charged up the tree) exactly once, when the request is recorded.
 */
async function admitTenant(deps: DispatchDeps, a: Attempt): Promise<Ticket> {
  const { admission } = deps.people;
  if (a.req.ownAccount) return admission.own(a.req.model);
  const ask = () =>
    admission.admit({
      key: a.req.key,
      model: a.req.model,
      demand: demandOf(a.req.body, outputCeiling(a.entry)),
    });
  let admitted = ask();
  // Only here does a request wait on the store: its control plane's budget slice is spent.
  if (!admitted.ok && admitted.short) {
    await admission.lease(admitted.short);
    admitted = ask();
  }
  if (admitted.ok) return admitted;
  const r = admitted.refusal;
  if (r) {
    deps.metrics.refusal(r.kind, refusalLevel[r.scope.kind]);
    // One notification per episode: the notifier opens it once and closes it when it clears.
    if (r.kind === "budget") deps.notifier.budgetReached(r.scope.kind, r.label);
  }
  throw admitted.error;
}

/**
 * The answer cache, before any replica is chosen: a kept answer is given back at once (recorded,
 * charged at the cache price); a miss leaves a keeper for the answer to come.
 */
async function consultCache(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
): Promise<Response | undefined> {
  if (a.req.ownAccount) return undefined;
  const { req, entry, stream, guard } = a;
  const found = await deps.answers.lookup({
    key: req.key,
    path: req.path,
    body: req.body,
    entry,
    stream,
    guard,
    signal: req.signal,
  });
  if (found?.kind === "miss") a.keep = found.keep;
  return found?.kind === "hit" ? fromCache(deps, a, ticket, found) : undefined;
}

function fromCache(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  hit: Extract<CacheLookup, { kind: "hit" }>,
): Response {
  const { answer } = hit.entry;
  const options = a.req.body.stream_options;
  const includeUsage = a.stream && isRecord(options) && options.include_usage === true;
  const { response, bytesOut } = cachedResponse(hit, includeUsage, ticket.headers);
  a.req.meter?.claim();
  a.req.meter?.end(bytesOut);
  const used = { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens };
  const latencyMs = elapsedMs(a.req.started);
  (a.req.usage ?? deps.usage).record({
    requestId: a.req.requestId,
    at: a.at,
    keyId: a.req.key.id,
    model: a.req.model,
    endpoint: a.req.endpoint,
    ...used,
    costMicros: deps.people.admission.settle({
      ticket: ticket.ticket,
      model: answer.servedModel,
      usage: { ...used, fromCache: true },
      ...(a.req.pricePercent === undefined ? {} : { pricePercent: a.req.pricePercent }),
    }),
    status: 200,
    latencyMs,
    ttftMs: a.stream ? latencyMs : null,
    stream: a.stream,
    servedModel: answer.servedModel,
    profile: a.profile,
    guard: a.guard?.usageVerdicts() ?? null,
    answerCache: hit.how,
  });
  return response;
}

/** The first model of the chain with a replica that can take the request now. */
function pickNow(deps: DispatchDeps, a: Attempt): Picked | undefined {
  const now = deps.clock.now();
  for (const m of a.chain) {
    const r = chooseFor(deps, a, m, now);
    if (r) return [m, r];
  }
  return undefined;
}

function chooseFor(deps: DispatchDeps, a: Attempt, m: ModelEntry, now: number) {
  // Where the session sits just before this choice: a request of the same session that was
  // placed meanwhile placed it, and a failed attempt's replica is where it sat.
  if (a.session !== undefined) a.home = deps.routing.sessions.where(a.session, now);
  return choose({
    table: deps.replicas,
    model: m.name,
    profile: a.profile,
    sessionKey: a.session,
    sessions: deps.routing.sessions,
    residents: a.residents,
    prefixReplicaId: a.prefixReplicaId,
    tried: a.tried,
    now,
  });
}

/**
 * What the other control planes know of the request's session: its place, or for a session new
 * to all of them, how many live sessions each replica of the model (and its fallbacks) holds.
 */
async function learnSession(deps: DispatchDeps, a: Attempt): Promise<void> {
  const { places } = deps.routing;
  if (a.session === undefined || !places?.shared) return;
  const counted = a.chain.flatMap((m) =>
    deps.replicas.forModel(m.name).filter((r) => !r.external).map((r) => ({
      id: r.id,
      cap: residentsCap(r.slots),
    }))
  );
  a.residents = await places.learn(a.session, counted, deps.clock.now());
}

/** Live sessions counted per replica: four times its slots, past which all are as full. */
function residentsCap(slots: number): number {
  return Math.min(Math.max(1, slots) * 4, 1_000);
}

/** Where the session went, for the other control planes: placed, moved, or kept alive. */
function publishSession(deps: DispatchDeps, a: Attempt, replica: Replica): void {
  const { places } = deps.routing;
  if (a.session === undefined || replica.external || !places?.shared) return;
  const now = deps.clock.now();
  if (a.home === replica.id) places.touch(a.session, replica.id, now);
  // Not waited for: the request goes on while its place is written (a millisecond or so, well
  // before the conversation's next turn can come).
  else void places.publish(a.session, replica.id, a.home !== undefined, now);
  a.home = replica.id;
  a.residents = undefined;
}

/** No replica at all (an on-demand model, or one still starting): wait for the reconciler. */
async function awaitStarted(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
): Promise<Picked | undefined> {
  if (a.chain.some((m) => hasUsable(deps.replicas, m.name, a.tried))) return undefined;
  await deps.models.awaitReplica(a.entry, a.req.signal).catch((e) => {
    // Refused before anything was recorded: what admission held goes back.
    deps.people.admission.release(ticket.ticket);
    throw e;
  });
  return pickNow(deps, a);
}

/**
 * Nothing has room now: wait in the queue of the first model that has a replica at all. A
 * Response (499) when the client left while waiting.
 */
async function waitInQueue(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
): Promise<Picked | Response> {
  const waitFor = a.chain.find((m) => hasUsable(deps.replicas, m.name, a.tried));
  if (!waitFor) {
    recordUsage(deps, a, ticket, undefined, 503);
    throw new AppError("model_unavailable", { model: a.req.model });
  }
  const lane = a.stream || a.profile === "chat" ? "interactive" : "batch";
  const take = () => {
    const r = chooseFor(deps, a, waitFor, deps.clock.now());
    // Taken inside the grant, so no other waiter can take the same room.
    if (r) r.inFlight++;
    return r;
  };
  try {
    // Fair between tenants: the next free slot goes to the flow with least in flight for its weight.
    const flow = deps.people.admission.flow(a.req.key, a.req.model);
    const r = await deps.routing.admission.admit(waitFor.name, lane, take, a.req.signal, flow);
    r.inFlight--;
    a.queueMs = elapsedMs(a.req.started);
    return [waitFor, r];
  } catch (e) {
    a.queueMs = elapsedMs(a.req.started);
    if (e instanceof AppError) {
      recordUsage(deps, a, ticket, undefined, 503);
      throw e;
    }
    recordUsage(deps, a, ticket, undefined, 499);
    return new Response(null, { status: 499 });
  }
}

/** Relays to the picked replica; on a failure before the first byte, to the next one left. */
async function relayAttempts(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  first: Picked,
): Promise<Response> {
  let last: Failure = { status: 0, detail: "the engine could not be reached" };
  let lastServed = a.entry;
  let picked: Picked | undefined = first;
  // Whose fault each failure is: a 5xx two replicas repeat alike is the request's, not theirs.
  const faults = new FaultJudge(deps.replicas);
  for (let n = 0; picked && n < deps.routing.settings.maxAttempts; n++) {
    const [served, replica] = picked;
    const result = await relayTo(deps, a, ticket, served, replica);
    if (result.kind === "answered") {
      faults.settle(true);
      deps.routing.keyBackoff.answered(a.req.key.id, a.req.model);
      return answered(deps, a, ticket, replica, result.response);
    }
    last = failedOn(deps, replica, result, faults, a.req.model, served);
    lastServed = served;
    if (faults.requestFault || a.req.signal.aborted) break;
    picked = pickNow(deps, a);
  }
  faults.settle(false);
  if (faults.keyAtFault) {
    const detail = faults.requestFault?.message ?? last.detail;
    deps.routing.keyBackoff.faulted(a.req.key.id, a.req.model, detail);
  }
  return giveUp(deps, a, ticket, last, lastServed, faults.requestFault);
}

async function relayTo(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  served: ModelEntry,
  replica: Replica,
): Promise<RelayResult> {
  const { req, entry } = a;
  const { routing } = deps;
  a.tried.add(replica);
  replica.inFlight++;
  replica.lastRequestAt = deps.clock.now();
  replica.breaker.take();
  publishSession(deps, a, replica);
  const relayStarted = performance.now();
  // A llama.cpp slot for the session, its cache saved or restored (slot_keeper.ts).
  const held = req.path === "/chat/completions" || req.path === "/completions"
    ? await routing.slotKeeper.claim(replica, served.engine, a.session)
    : undefined;
  const unchanged = served === entry && !served.upstreamModel && a.req.model === entry.name &&
    !held;
  const result = await relay({
    upstream: routing.upstream,
    replica,
    path: req.path,
    ...(req.enginePath !== undefined ? { rootPath: req.enginePath } : {}),
    body: unchanged ? req.body : {
      ...req.body,
      model: served.upstreamModel ?? served.name,
      ...(held ? { id_slot: held.slot } : {}),
    },
    ...(unchanged && req.rawBody ? { rawBody: req.rawBody } : {}),
    clientSignal: req.signal,
    firstByteTimeoutMs: deps.limits.firstByteTimeoutMs,
    idleTimeoutMs: routing.settings.streamIdleTimeoutMs,
    retryable: replica.external ? (s) => s >= 500 || s === 429 || s === 401 : (s) => s >= 500,
    servedModel: served.name,
    onDone: (o) => {
      held?.release();
      answerEnded(deps, a, ticket, served, replica, o, relayStarted);
    },
    ...(a.guard?.hasOutput ? { guard: a.guard } : {}),
    // Kept only as the model asked for answered it: a fallback's answer is another model's.
    ...(a.keep && served === entry ? { keep: a.keep } : {}),
  });
  if (result.kind === "failed") held?.release();
  return result;
}

/** The answer under way ended, however it ended: the replica's books, then the usage row. */
function answerEnded(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  served: ModelEntry,
  replica: Replica,
  o: RelayOutcome,
  relayStarted: number,
): void {
  a.req.meter?.end(o.bytesOut);
  release(deps, replica);
  if (o.status === 499) replica.breaker.release();
  else if (o.status >= 500) replica.breaker.failure();
  else replica.breaker.success();
  if (a.stream && o.status === 200 && o.ttftMs !== null) {
    replica.ttft.add(o.ttftMs, deps.clock.now());
  }
  // The client's view: time to first token counts the queue and earlier attempts.
  const offset = Math.round(relayStarted - a.req.started);
  const seen = { ...o, ttftMs: o.ttftMs === null ? null : o.ttftMs + offset };
  recordUsage(deps, a, ticket, seen, o.status, served, replica);
}

function answered(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  replica: Replica,
  response: Response,
): Response {
  a.req.meter?.claim();
  if (a.blocks.length) deps.routing.prefixIndex.record(a.blocks, replica.id);
  for (const [k, v] of Object.entries(ticket.headers)) response.headers.set(k, v);
  if (a.keep) response.headers.set("x-llmgw-cache", "miss");
  return response;
}

/** A replica failed before the first byte: its breaker hears of it, unless the request is to blame. */
function failedOn(
  deps: DispatchDeps,
  replica: Replica,
  result: Extract<RelayResult, { kind: "failed" }>,
  faults: FaultJudge,
  model: string,
  served: ModelEntry,
): Failure {
  release(deps, replica);
  if (replica.external && (result.status === 429 || result.status === 401)) {
    replica.breaker.trip();
    if (result.status === 401) deps.routing.keyRefused(replica.id);
  } else {
    faults.failed(replica, result, model, refusalTexts(served.engine));
  }
  // An outside provider's error text can quote part of the key it refused: never passed on.
  return replica.external ? { status: result.status, detail: result.detail } : result;
}

/** Every attempt failed (or the client left): recorded once, then the last failure is told. */
function giveUp(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  last: Failure,
  lastServed: ModelEntry,
  requestFault: AppError | undefined,
): Response {
  if (a.req.signal.aborted) {
    recordUsage(deps, a, ticket, undefined, 499);
    return new Response(null, { status: 499 });
  }
  if (requestFault) {
    recordUsage(deps, a, ticket, undefined, 400, lastServed);
    throw requestFault;
  }
  const status = last.status || 502;
  recordUsage(deps, a, ticket, undefined, status, lastServed);
  if (last.answer) return passOn(lastServed.name, last.answer, status, lastServed.name);
  if (status === 429) {
    throw new AppError("provider_rate_limited", { model: a.req.model }, null, { retryAfterS: 1 });
  }
  throw new AppError("engine_error", { model: a.req.model, detail: last.detail });
}

function recordUsage(
  deps: DispatchDeps,
  a: Attempt,
  ticket: Ticket,
  o: Omit<RelayOutcome, "status" | "latencyMs" | "bytesOut"> | undefined,
  status: number,
  served?: ModelEntry,
  r?: Replica,
): void {
  const used = usedTokens(o, a.req.body);
  (a.req.usage ?? deps.usage).record({
    requestId: a.req.requestId,
    at: a.at,
    keyId: a.req.key.id,
    model: a.req.model,
    endpoint: a.req.endpoint,
    ...used,
    costMicros: settleCost(deps, ticket, a.req.model, used, served, a.req.pricePercent),
    status,
    latencyMs: elapsedMs(a.req.started),
    ttftMs: o?.ttftMs ?? null,
    stream: a.stream,
    servedModel: served?.name ?? null,
    queueMs: a.queueMs,
    replicaId: r?.id ?? null,
    profile: a.profile,
    guard: a.guard?.usageVerdicts() ?? null,
  });
}

/** Priced at the model that served; nothing served costs nothing. */
function settleCost(
  deps: DispatchDeps,
  ticket: Ticket,
  model: string,
  o: { promptTokens: number; completionTokens: number; cachedTokens: number } | undefined,
  served: ModelEntry | undefined,
  pricePercent: number | undefined,
): number {
  const usage = o ?? noTokens;
  return deps.people.admission.settle({
    ticket: ticket.ticket,
    model: served?.name ?? model,
    usage,
    ...(pricePercent === undefined ? {} : { pricePercent }),
  });
}

/**
 * The tokens a request used, as its usage row and its charge count them: the engine's report,
 * or for an answer that ended before any report (its prompt was read) the gateway's estimate.
 */
function usedTokens(
  o: Omit<RelayOutcome, "status" | "latencyMs" | "bytesOut"> | undefined,
  body: Record<string, unknown>,
) {
  const estimated = o?.promptUnreported === true;
  return {
    promptTokens: estimated ? estimatePromptTokens(body) : o?.promptTokens ?? 0,
    promptEstimated: estimated,
    completionTokens: o?.completionTokens ?? 0,
    cachedTokens: o?.cachedTokens ?? 0,
  };
}

const noTokens = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
const elapsedMs = (since: number) => Math.round(performance.now() - since);

function release(deps: DispatchDeps, r: Replica): void {
  r.inFlight--;
  deps.routing.admission.wake(r.model);
}

function fallbackEntries(deps: DispatchDeps, entry: ModelEntry): ModelEntry[] {
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
