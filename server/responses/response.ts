/**
 * A chat completion turned into a Responses API response object: output items (reasoning when a
 * summary was asked, the message, function calls), the status (`incomplete` when the output
 * limit cut it), and usage in the Responses shape with cached and reasoning tokens apart.
 */
import { isRecord } from "../router/json_fields.ts";
import { reasoningOf } from "../anthropic/response.ts";
import type { SearchResult } from "../kb/search.ts";
import { fileCitations } from "./file_search.ts";

type Json = Record<string, unknown>;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** What the response object echoes of its request, and the ids it is given. */
export interface ResponseContext {
  id: string;
  createdAt: number;
  req: Json;
  summary: boolean;
  newId: (prefix: string) => string;
  /** The file_search tool's call item (first in the output) and the passages it gave the model. */
  fileSearch?: { item: Json; results: SearchResult[] } | undefined;
  /** `background: true`: run apart from the request (server/responses/background.ts). */
  background?: boolean;
}

export type Status =
  | "queued"
  | "in_progress"
  | "completed"
  | "incomplete"
  | "failed"
  | "cancelled";

/** The response object around its output, echoing the request as OpenAI does. */
export function envelope(
  ctx: ResponseContext,
  status: Status,
  output: Json[],
  usage: ResponsesUsage | null,
  extra: { incomplete?: boolean; error?: { code: string; message: string } } = {},
): Json {
  const r = ctx.req;
  const reasoning = isRecord(r.reasoning) ? r.reasoning : {};
  return {
    id: ctx.id,
    object: "response",
    created_at: ctx.createdAt,
    status,
    background: ctx.background === true,
    error: extra.error ?? null,
    incomplete_details: extra.incomplete ? { reason: "max_output_tokens" } : null,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    metadata: isRecord(r.metadata) ? r.metadata : {},
    model: r.model,
    output,
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: r.previous_response_id ?? null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    store: r.store !== false,
    temperature: r.temperature ?? 1,
    text: isRecord(r.text) && isRecord(r.text.format) ? r.text : { format: { type: "text" } },
    tool_choice: r.tool_choice ?? "auto",
    tools: Array.isArray(r.tools) ? r.tools : [],
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? "disabled",
    usage,
    user: r.user ?? null,
  };
}

export function toResponse(completion: unknown, ctx: ResponseContext): Json {
  const choice = firstChoice(completion);
  const message = isRecord(choice?.message) ? choice.message : {};
  const output: Json[] = ctx.fileSearch ? [ctx.fileSearch.item] : [];
  const reasoning = reasoningOf(message);
  if (ctx.summary && reasoning) output.push(reasoningItem(ctx.newId("rs"), reasoning));
  const text = textOf(message.content);
  if (text !== "") {
    output.push(
      messageItem(
        ctx.newId("msg"),
        text,
        "completed",
        fileCitations(text, ctx.fileSearch?.results ?? []),
        logprobsOf(choice),
      ),
    );
  }
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const call of calls) {
    if (!isRecord(call)) continue;
    const fn = isRecord(call.function) ? call.function : {};
    output.push(functionCallItem(
      ctx.newId("fc"),
      typeof call.id === "string" && call.id ? call.id : ctx.newId("call"),
      typeof fn.name === "string" ? fn.name : "",
      typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
      "completed",
    ));
  }
  const incomplete = choice?.finish_reason === "length";
  return envelope(ctx, incomplete ? "incomplete" : "completed", output, usageOf(completion), {
    incomplete,
  });
}

export function messageItem(
  id: string,
  text: string,
  status: string,
  annotations: Json[] = [],
  logprobs: Json[] = [],
): Json {
  return {
    id,
    type: "message",
    status,
    role: "assistant",
    content: status === "in_progress" ? [] : [outputTextPart(text, annotations, logprobs)],
  };
}

export function outputTextPart(
  text: string,
  annotations: Json[] = [],
  logprobs: Json[] = [],
): Json {
  return { type: "output_text", text, annotations, logprobs };
}

/** Chat's per-token logprobs (`include: ["message.output_text.logprobs"]`): the same fields. */
function logprobsOf(choice: Json | undefined): Json[] {
  const content = isRecord(choice?.logprobs) ? choice.logprobs.content : undefined;
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).map((t) => ({
    token: String(t.token ?? ""),
    logprob: typeof t.logprob === "number" ? t.logprob : 0,
    bytes: Array.isArray(t.bytes) ? t.bytes : [],
    top_logprobs: Array.isArray(t.top_logprobs)
      ? t.top_logprobs.filter(isRecord).map((a) => ({
        token: String(a.token ?? ""),
        logprob: typeof a.logprob === "number" ? a.logprob : 0,
        bytes: Array.isArray(a.bytes) ? a.bytes : [],
      }))
      : [],
  }));
}

export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  status: string,
): Json {
  return { id, type: "function_call", status, call_id: callId, name, arguments: args };
}

export function reasoningItem(id: string, summary: string | null): Json {
  return {
    id,
    type: "reasoning",
    summary: summary === null ? [] : [{ type: "summary_text", text: summary }],
  };
}

/** Chat usage in the Responses shape; engines report cached tokens in one of two places. */
export function usageOf(body: unknown): ResponsesUsage {
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : {};
  const input = count(usage.prompt_tokens);
  const output = count(usage.completion_tokens);
  const prompt = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isRecord(usage.completion_tokens_details)
    ? usage.completion_tokens_details
    : {};
  const timings = isRecord(body) && isRecord(body.timings) ? body.timings : {};
  const cached = Math.min(count(prompt.cached_tokens) || count(timings.cache_n), input);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: count(completion.reasoning_tokens) },
    total_tokens: input + output,
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isRecord(p) ? String(p.text ?? "") : "")).join("");
}

function firstChoice(body: unknown): Json | undefined {
  const choices = isRecord(body) && Array.isArray(body.choices) ? body.choices : [];
  const first = choices.find((c) => isRecord(c) && (c.index ?? 0) === 0) ?? choices[0];
  return isRecord(first) ? first : undefined;
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;
}
