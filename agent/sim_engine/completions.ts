/** POST /v1/chat/completions and /v1/completions: validation, then one job, streamed or not. */
import type { Context } from "hono";
import type { Engine } from "./engine.ts";
import { countTokens, hashText, mixSeed, prompts } from "./generate.ts";
import { type Job, type JobEvent, runJob } from "./inference.ts";
import {
  chatChunk,
  chatCompletion,
  errorBody,
  type Finished,
  type Meta,
  newMeta,
  textChunk,
  textCompletion,
  usage,
  usageChunk,
} from "./openai_shapes.ts";
import {
  type ChatRequest,
  chatRequest,
  type CompletionRequest,
  completionRequest,
  parseBody,
} from "./requests.ts";
import { sseResponse } from "./sse.ts";

interface Plan {
  kind: "chat" | "text";
  meta: Meta;
  job: Job;
  stream: boolean;
  includeUsage: boolean;
}

export function chatHandler(engine: Engine) {
  return async (c: Context): Promise<Response> => {
    const parsed = await parseBody(c, chatRequest);
    return parsed.ok ? run(c, engine, chatPlan(engine, parsed.data)) : parsed.response;
  };
}

export function completionHandler(engine: Engine) {
  return async (c: Context): Promise<Response> => {
    const parsed = await parseBody(c, completionRequest);
    return parsed.ok ? run(c, engine, textPlan(engine, parsed.data)) : parsed.response;
  };
}

function chatPlan(engine: Engine, req: ChatRequest): Plan {
  const texts = req.messages.map((m) =>
    typeof m.content === "string"
      ? m.content
      : (m.content ?? []).map((p) => p.text ?? "").join("\n")
  );
  // About what a chat template adds: a few tokens around each message, a few to open the reply.
  const promptTokens = texts.reduce((n, t) => n + countTokens(t) + 4, 3);
  const base = hashText(JSON.stringify(req.messages.map((m, i) => [m.role, texts[i]])));
  const n = req.n ?? 1;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens ?? engine.defaultMaxTokens;
  const seeds = Array.from({ length: n }, (_, i) => mixSeed(mixSeed(base, req.seed ?? 0), i));
  return plan("chat", engine, req, { promptTokens, seeds, maxTokens, stop: stops(req.stop) });
}

function textPlan(engine: Engine, req: CompletionRequest): Plan {
  const list = prompts(req.prompt);
  const n = req.n ?? 1;
  const seeds = list.flatMap(({ key }) =>
    Array.from({ length: n }, (_, i) => mixSeed(mixSeed(hashText(key), req.seed ?? 0), i))
  );
  const promptTokens = list.reduce((sum, x) => sum + x.tokens, 0);
  const maxTokens = req.max_tokens ?? engine.defaultMaxTokens;
  return plan("text", engine, req, { promptTokens, seeds, maxTokens, stop: stops(req.stop) });
}

function plan(
  kind: Plan["kind"],
  engine: Engine,
  req: ChatRequest | CompletionRequest,
  job: Job,
): Plan {
  return {
    kind,
    meta: newMeta(kind === "chat" ? "chatcmpl" : "cmpl", req.model ?? engine.model),
    job,
    stream: req.stream ?? false,
    includeUsage: req.stream_options?.include_usage ?? false,
  };
}

function stops(stop: string | string[] | null | undefined): string[] {
  return (typeof stop === "string" ? [stop] : stop ?? []).filter((s) => s.length > 0);
}

async function run(c: Context, engine: Engine, plan: Plan): Promise<Response> {
  const nCtx = engine.pool.nCtx;
  if (plan.job.promptTokens >= nCtx) {
    const message = `The request has ${plan.job.promptTokens} prompt tokens, which exceeds the ` +
      `available context size of ${nCtx} tokens.`;
    const param = plan.kind === "chat" ? "messages" : "prompt";
    return c.json(errorBody(message, { param, code: "context_length_exceeded" }), 400);
  }
  const cancel = new AbortController();
  const signal = AbortSignal.any([c.req.raw.signal, engine.shutdown, cancel.signal]);
  const events = runJob(engine, plan.job, signal);
  try {
    // Headers wait for a slot and the prompt, as with llama-server, so queueing shows as latency.
    await events.next();
  } catch {
    return gone(c, engine);
  }
  if (plan.stream) return sseResponse(chunks(plan, events), cancel);
  const choices: Finished[] = plan.job.seeds.map(() => ({ text: "", finish: "length" }));
  try {
    for await (const ev of events) {
      if (ev.type === "delta") choices[ev.index]!.text += ev.text;
      else if (ev.type === "finish") choices[ev.index]!.finish = ev.reason;
      else if (ev.type === "end") {
        const use = usage(plan.job.promptTokens, ev.completionTokens);
        const body = plan.kind === "chat"
          ? chatCompletion(plan.meta, choices, use, ev.timings)
          : textCompletion(plan.meta, choices, use, ev.timings);
        return c.json(body);
      }
    }
  } catch {
    // Aborted mid-generation; fall through.
  }
  return gone(c, engine);
}

async function* chunks(plan: Plan, events: AsyncGenerator<JobEvent>): AsyncGenerator<unknown> {
  const { meta, includeUsage: u } = plan;
  const chat = plan.kind === "chat";
  if (chat) {
    for (const index of plan.job.seeds.keys()) {
      const first = { index, delta: { role: "assistant" as const, content: "" } };
      yield chatChunk(meta, [{ ...first, finish_reason: null }], u);
    }
  }
  for await (const ev of events) {
    if (ev.type === "delta") {
      yield chat
        ? chatChunk(
          meta,
          [{ index: ev.index, delta: { content: ev.text }, finish_reason: null }],
          u,
        )
        : textChunk(meta, { index: ev.index, text: ev.text, finish_reason: null }, u);
    } else if (ev.type === "finish") {
      yield chat
        ? chatChunk(meta, [{ index: ev.index, delta: {}, finish_reason: ev.reason }], u)
        : textChunk(meta, { index: ev.index, text: "", finish_reason: ev.reason }, u);
    } else if (ev.type === "end" && u) {
      const object = chat ? "chat.completion.chunk" : "text_completion";
      yield usageChunk(meta, object, usage(plan.job.promptTokens, ev.completionTokens), ev.timings);
    }
  }
}

/** The run was aborted: either the client left (no one to answer) or the server is closing. */
function gone(c: Context, engine: Engine): Response {
  if (engine.shutdown.aborted) {
    return c.json(errorBody("The server is shutting down.", { type: "server_error" }), 503);
  }
  // 499 is nginx's "client closed request"; nobody reads it, but logs and tests can tell it apart.
  return new Response(null, { status: 499 });
}
