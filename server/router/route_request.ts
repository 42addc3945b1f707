/**
 * What one request brings to dispatch, read from the Hono context once, at the door: the steps
 * after it take it as an argument and never look at the context.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { AnswerMeter } from "../observe/answer_meter.ts";
import type { UsageSink } from "../usage/recorder.ts";
import { profileHeader } from "./picker.ts";
import { requireModel } from "./read_body.ts";

export type EnginePath =
  | "/chat/completions"
  | "/completions"
  | "/embeddings"
  | "/rerank"
  // Only to an outside provider that serves the Responses API itself (routes/responses.ts).
  | "/responses";

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
  /** The client's path the usage row names, when a dialect route translated it (/messages). */
  endpoint?: string;
  /** The share of the price charged: a batch line pays the batch price. */
  pricePercent?: number;
  /**
   * Where the request's usage rows go instead of the recorder: a batch line's are written with
   * its answer, in one transaction, so a line run again after a crash is charged once.
   */
  usage?: UsageSink;
  /**
   * The path sent from the engine's root instead of `path` under its API base, for an engine
   * that spells the route its own way (text-embeddings-inference's `/rerank`).
   */
  enginePath?: string;
  /**
   * The gateway's own request (a question embedded for the answer cache): no level's limits or
   * budgets bind or are charged, and the answer cache is not asked.
   */
  ownAccount?: boolean;
}

/** What one request brings, read from the context once. */
export interface RouteRequest {
  readonly requestId: string;
  readonly key: ApiKeyInfo;
  /** The model the client asked for. */
  readonly model: string;
  readonly path: EnginePath;
  /** The path the client called, as usage rows name it. */
  readonly endpoint: string;
  /** DispatchOptions.enginePath. */
  readonly enginePath: string | undefined;
  readonly pricePercent: number | undefined;
  /** DispatchOptions.usage. */
  readonly usage: UsageSink | undefined;
  readonly body: Record<string, unknown>;
  readonly rawBody: Uint8Array<ArrayBuffer> | undefined;
  readonly meter: AnswerMeter | undefined;
  /** The profile asked for (the option, else the header), before the model's own applies. */
  readonly profileAsked: string | undefined;
  readonly sessionId: string | undefined;
  /** Aborted when the client leaves, or when the shutdown grace is over. */
  readonly signal: AbortSignal;
  /** performance.now() when dispatch began: latency, queue time and time to first token. */
  readonly started: number;
  readonly ownAccount: boolean;
}

export function routeRequest(
  c: Context<AppEnv>,
  path: EnginePath,
  body: Record<string, unknown>,
  opts: DispatchOptions,
): RouteRequest {
  const started = performance.now();
  const model = requireModel(body);
  return {
    requestId: c.get("requestId"),
    key: c.get("apiKey"),
    model,
    path,
    endpoint: opts.endpoint ?? path,
    enginePath: opts.enginePath,
    pricePercent: opts.pricePercent,
    usage: opts.usage,
    body,
    rawBody: opts.rawBody,
    meter: opts.meter,
    profileAsked: opts.profile ?? c.req.header(profileHeader),
    sessionId: c.req.header("x-session-id"),
    // In app.request (tests, in-process callers) there is no listener: the Request's own.
    signal: c.env?.clientGone ?? c.req.raw.signal,
    started,
    ownAccount: opts.ownAccount === true,
  };
}
