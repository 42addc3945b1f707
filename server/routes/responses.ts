/**
 * OpenAI's Responses API at /v1/responses, what its SDKs, the Agents SDK and Codex speak first.
 * The request (with the conversation `previous_response_id` continues) is translated to a chat
 * completions body, goes through the one dispatch() every dialect uses (limits, budgets, usage
 * rows, fallbacks as on chat), and the answer is translated back and kept unless `store: false`.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { BodyLimit } from "../router/read_body.ts";
import type { KeyService } from "../keys/keys.ts";
import { AppError } from "../../core/errors.ts";
import { newUlid } from "../../core/ulid.ts";
import type { Clock } from "../../core/clock.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";
import { readJsonRequest } from "../router/read_body.ts";
import { isRecord } from "../router/json_fields.ts";
import { toChatRequest } from "../responses/request.ts";
import { type ResponseContext, toResponse } from "../responses/response.ts";
import { translateStream } from "../responses/stream.ts";
import type { ResponseStore, StoredResponse } from "../responses/response_store.ts";
import { requireApiKey } from "./require_api_key.ts";
import { listPage, pageLimit } from "./list_page.ts";
import type { KnowledgeBases } from "../kb/knowledge_bases.ts";
import { runFileSearch } from "../responses/file_search.ts";
import { BackgroundResponses } from "../responses/background.ts";
import type { Logger } from "../../core/log.ts";
import { fitToContext } from "../responses/truncation.ts";
import { modelLimits } from "../models/model_limits.ts";
import { defOf } from "../models/catalog_row.ts";

type Json = Record<string, unknown>;

export interface ResponsesDeps {
  keys: Pick<KeyService, "check">;
  limits: BodyLimit;
  dispatch: DispatchDeps;
  responses: Pick<ResponseStore, "put" | "get" | "delete" | "end" | "renew">;
  clock: Clock;
  logger: Logger;
  /** The file_search tool's knowledge bases. */
  kb: Pick<KnowledgeBases, "resolve" | "search">;
}

const newId = (prefix: string) => `${prefix}_${newUlid().toLowerCase()}`;

/** Mounted at /v1. */
export function responsesRoutes(deps: ResponsesDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const background = new BackgroundResponses(deps);
  app.use("/responses", requireApiKey(deps));
  app.use("/responses/*", requireApiKey(deps));
  app.post("/responses", (c) => create(deps, background, c));
  app.get("/responses/:id", async (c) => {
    const id = c.req.param("id");
    const response = await background.current(id, await kept(deps, c));
    if (c.req.query("stream") !== "true") return c.json(response);
    const after = Number(c.req.query("starting_after") ?? -1);
    const events = background.follow(id, Number.isInteger(after) ? after : -1);
    if (!events) {
      throw new AppError("invalid_request", {
        detail: "this response's events are not kept here: retrieve it without 'stream'",
      }, "stream");
    }
    return eventStream(events);
  });
  app.delete("/responses/:id", async (c) => {
    const id = c.req.param("id");
    if (!await deps.responses.delete(c.get("apiKey").id, id)) throw notFound(id);
    return c.json({ id, object: "response", deleted: true });
  });
  app.get("/responses/:id/input_items", async (c) => c.json(inputItems(await kept(deps, c), c)));
  app.post(
    "/responses/:id/cancel",
    async (c) => c.json(await background.cancel(c.req.param("id"), await kept(deps, c))),
  );
  return app;
}

async function create(
  deps: ResponsesDeps,
  background: BackgroundResponses,
  c: Context<AppEnv>,
): Promise<Response> {
  const { body: req, bytes } = await readJsonRequest(c.req.raw, deps.limits.maxBodyBytes);
  if (passesThrough(deps, c, req.model)) {
    return await dispatch(deps.dispatch, c, "/responses", req, {
      rawBody: bytes,
      meter: c.get("answerMeter"),
    });
  }
  const keyId = c.get("apiKey").id;
  const previous = await previousTurn(deps, keyId, req.previous_response_id);
  const history = previous ? conversation(previous) : [];
  const t = fitToContext(
    req,
    history,
    contextOf(deps, req.model),
    (h) => toChatRequest(req, h, newId),
  );
  const search = t.fileSearch
    ? await runFileSearch(deps.kb, c.get("apiKey"), t.fileSearch, t.body, newId("fs"))
    : undefined;
  const ctx: ResponseContext = {
    id: newId("resp"),
    createdAt: Math.floor(deps.clock.now() / 1000),
    req,
    summary: t.summary,
    newId,
    fileSearch: search,
  };
  const body = search?.body ?? t.body;
  if (req.background === true) {
    ctx.background = true;
    const queued = await background.start({
      key: c.get("apiKey"),
      ctx,
      // Always streamed inside, so a client may follow the events however it asked.
      body: { ...body, stream: true, stream_options: { include_usage: true } },
      input: t.input,
      context: history,
    });
    return t.stream ? eventStream(background.follow(ctx.id)!) : c.json(queued);
  }
  const keep = async (response: Json) => {
    if (req.store === false) return;
    await deps.responses.put(keyId, ctx.id, { response, input: t.input, context: history });
  };
  const res = await dispatch(deps.dispatch, c, "/chat/completions", body, {
    endpoint: "/responses",
  });
  const type = res.headers.get("content-type") ?? "";
  if (res.ok && type.includes("text/event-stream") && res.body) {
    return eventStream(translateStream(res.body, ctx, keep));
  }
  // An engine's error is already in OpenAI's envelope: it goes on as it came.
  if (!res.ok) return res;
  let completion: unknown;
  try {
    completion = await res.json();
  } catch {
    throw new AppError("engine_error", {
      model: String(req.model),
      detail: "the engine's answer is not JSON",
    });
  }
  const response = toResponse(completion, ctx);
  await keep(response);
  return c.json(response);
}

/**
 * An outside provider that serves the Responses API itself is sent the request as it came (its
 * tools, its conversation ids, its events), unless a guardrail applies to the key: guardrails
 * read chat messages, so such a request is translated as for any engine and they see it.
 */
function passesThrough(deps: ResponsesDeps, c: Context<AppEnv>, model: unknown): boolean {
  const entry = typeof model === "string" ? deps.dispatch.catalog.get(model) : undefined;
  if (!entry || defOf(entry)?.external?.responses !== true) return false;
  const { guard } = deps.dispatch;
  return guard.policies.forChain(guard.chainOf(c.get("apiKey"))).length === 0;
}

/** The model's context in tokens, when the catalog says (not for `up`'s own or an outside one). */
function contextOf(deps: ResponsesDeps, model: unknown): number | undefined {
  const entry = typeof model === "string" ? deps.dispatch.catalog.get(model) : undefined;
  const context = entry ? modelLimits(entry).context_length : undefined;
  return typeof context === "number" ? context : undefined;
}

async function previousTurn(
  deps: ResponsesDeps,
  keyId: string,
  id: unknown,
): Promise<StoredResponse | undefined> {
  if (id === undefined || id === null) return undefined;
  if (typeof id !== "string") {
    throw new AppError(
      "invalid_request",
      { detail: "'previous_response_id' must be a string" },
      "previous_response_id",
    );
  }
  const found = await deps.responses.get(keyId, id);
  if (!found) throw notFound(id, "previous_response_id");
  return found;
}

/** The items a next turn continues: the earlier turns, this one's input, and its output. */
function conversation(s: StoredResponse): Json[] {
  const output = Array.isArray(s.response.output) ? s.response.output.filter(isRecord) : [];
  return [...s.context, ...s.input, ...output];
}

async function kept(deps: ResponsesDeps, c: Context<AppEnv>): Promise<StoredResponse> {
  const id = c.req.param("id") ?? "";
  const found = await deps.responses.get(c.get("apiKey").id, id);
  if (!found) throw notFound(id);
  return found;
}

/** OpenAI's list of input items: newest first unless `order=asc`, `after` and `limit` paging. */
function inputItems(s: StoredResponse, c: Context<AppEnv>): Json {
  const asc = c.req.query("order") === "asc";
  const limit = pageLimit(c.req.query("limit"), 20, 100);
  let items = asc ? [...s.input] : [...s.input].reverse();
  const after = c.req.query("after");
  if (after) items = items.slice(items.findIndex((i) => i.id === after) + 1);
  const data = items.slice(0, limit);
  return listPage(data, items.length > data.length);
}

function eventStream(events: ReadableStream<Uint8Array>): Response {
  return new Response(events, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}

function notFound(id: string, param: string | null = null): AppError {
  return new AppError("not_found", { path: `response '${id}'` }, param);
}
