/** POST /v1/chat/completions and /v1/completions: validation, then one job, streamed or not. */
import type { Context } from "hono";
import type { Engine } from "./engine.ts";
import { countTokens, hashText, mixSeed, prompts } from "./generate.ts";
import { type Job, type JobEvent, runJob } from "./inference.ts";
import { promptPrefix } from "./prompt_cache.ts";
import {
  chatChunk,
  chatCompletion,
  type ChatDelta,
  chatFinish,
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
import {
  formattedAnswer,
  logprobsFor,
  type PlannedCall,
  plannedCall,
  type ToolSpec,
  toTokens,
} from "./structured.ts";

interface Plan {
  kind: "chat" | "text";
  meta: Meta;
  job: Job;
  stream: boolean;
  includeUsage: boolean;
  /** Chat: per choice, the tool call it answers with instead of text. */
  calls?: (PlannedCall | undefined)[];
  /** Chat with `logprobs: true`: how many alternatives each token lists. */
  topLogprobs?: number | undefined;
}

/** Tokens a thinking model reasons for before it answers, when its template is told to think. */
const reasoningTokens = 12;

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
  const toolText = req.tools ? JSON.stringify(req.tools) : "";
  const promptTokens = texts.reduce((n, t) => n + countTokens(t) + 4, 3 + countTokens(toolText));
  const base = hashText(JSON.stringify(req.messages.map((m, i) => [m.role, texts[i]])));
  const n = req.n ?? 1;
  const maxTokens = req.max_completion_tokens ?? req.max_tokens ?? engine.defaultMaxTokens;
  const seeds = Array.from({ length: n }, (_, i) => mixSeed(mixSeed(base, req.seed ?? 0), i));
  const calls = seeds.map((seed) =>
    plannedCall(req.tools as ToolSpec[] | null, req.tool_choice, seed)
  );
  // A tool call's arguments, the JSON response_format asks for, or an echo are the answer, token
  // by token.
  const echo = echoed(texts[texts.length - 1], req.messages[req.messages.length - 1]?.role);
  const scripts = seeds.map((seed, i) => {
    const fixed = calls[i]?.arguments ?? formattedAnswer(req.response_format, seed) ?? echo;
    return fixed === undefined ? undefined : toTokens(fixed);
  });
  const prefix = promptPrefix(req.messages.map((m, i) => ({
    hash: hashText(`${m.role}\n${texts[i]}`),
    tokens: countTokens(texts[i]!) + 4,
  })));
  const job: Job = { promptTokens, seeds, maxTokens, stop: stops(req.stop), prefix };
  if (req.id_slot !== undefined && req.id_slot !== null && req.id_slot >= 0) {
    job.slotId = req.id_slot;
  }
  if (scripts.some((s) => s)) job.scripts = scripts;
  if (req.chat_template_kwargs?.enable_thinking === true) job.reasoningTokens = reasoningTokens;
  const p = plan("chat", engine, req, job);
  p.calls = calls;
  if (req.logprobs === true) p.topLogprobs = req.top_logprobs ?? 0;
  return p;
}

/**
 * A last user message starting `echo:` is answered with the rest of itself: how a test gets an
 * answer of its choosing (Markdown, a code block) streamed at the engine's pace.
 */
export function echoed(text: string | undefined, role: string | undefined): string | undefined {
  if (role !== "user" || !text?.startsWith("echo:")) return undefined;
  return text.slice(5).replace(/^ /, "");
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
  const choices: Finished[] = plan.job.seeds.map((_, i) => ({
    text: "",
    finish: "length",
    reasoning: "",
    call: plan.calls?.[i],
  }));
  try {
    for await (const ev of events) {
      if (ev.type === "delta") {
        const ch = choices[ev.index]!;
        ch.text += ev.text;
        ch.reasoning += ev.reasoning ?? "";
      } else if (ev.type === "finish") {
        const ch = choices[ev.index]!;
        ch.finish = ev.reason;
        if (plan.topLogprobs !== undefined && !ch.call) {
          ch.logprobs = logprobsFor(ch.text, plan.topLogprobs);
        }
      } else if (ev.type === "end") {
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
  if (plan.kind === "text") {
    for await (const ev of events) {
      if (ev.type === "delta") {
        yield textChunk(meta, { index: ev.index, text: ev.text, finish_reason: null }, u);
      } else if (ev.type === "finish") {
        yield textChunk(meta, { index: ev.index, text: "", finish_reason: ev.reason }, u);
      } else if (ev.type === "end" && u) {
        const use = usage(plan.job.promptTokens, ev.completionTokens);
        yield usageChunk(meta, "text_completion", use, ev.timings);
      }
    }
    return;
  }
  const one = (d: ChatDelta) => chatChunk(meta, [d], u);
  for (const index of plan.job.seeds.keys()) {
    yield one({
      index,
      delta: { role: "assistant", content: plan.calls?.[index] ? null : "" },
      finish_reason: null,
    });
  }
  // A tool call streams as OpenAI's does: id and name first, then the arguments in pieces.
  const headSent = new Set<number>();
  const head = (index: number, call: PlannedCall) => {
    headSent.add(index);
    const first = {
      index: 0,
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: "" },
    };
    return one({ index, delta: { tool_calls: [first] }, finish_reason: null });
  };
  for await (const ev of events) {
    if (ev.type === "delta") {
      const index = ev.index;
      if (ev.reasoning) {
        yield one({ index, delta: { reasoning_content: ev.reasoning }, finish_reason: null });
      }
      if (!ev.text) continue;
      const call = plan.calls?.[index];
      if (call) {
        if (!headSent.has(index)) yield head(index, call);
        const part = { index: 0, function: { arguments: ev.text } };
        yield one({ index, delta: { tool_calls: [part] }, finish_reason: null });
      } else {
        const d: ChatDelta = { index, delta: { content: ev.text }, finish_reason: null };
        if (plan.topLogprobs !== undefined) {
          d.logprobs = { content: logprobsFor(ev.text, plan.topLogprobs) };
        }
        yield one(d);
      }
    } else if (ev.type === "finish") {
      const call = plan.calls?.[ev.index];
      if (call && !headSent.has(ev.index)) yield head(ev.index, call);
      yield one({ index: ev.index, delta: {}, finish_reason: chatFinish(ev.reason, call) });
    } else if (ev.type === "end" && u) {
      const use = usage(plan.job.promptTokens, ev.completionTokens);
      yield usageChunk(meta, "chat.completion.chunk", use, ev.timings);
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
