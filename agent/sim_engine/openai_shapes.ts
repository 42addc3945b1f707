/** Response bodies in OpenAI's shapes, plus llama-server's extra `timings`. */
import type { FinishReason, Timings } from "./inference.ts";
import type { LogprobEntry, PlannedCall } from "./structured.ts";

export interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | number | null };
}

export function errorBody(
  message: string,
  extra: { type?: string; param?: string | null; code?: string | number | null } = {},
): ErrorBody {
  return {
    error: {
      message,
      type: extra.type ?? "invalid_request_error",
      param: extra.param ?? null,
      code: extra.code ?? null,
    },
  };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export function usage(prompt: number, completion: number): Usage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** What every completion body and chunk starts with; one per request, shared by its chunks. */
export interface Meta {
  id: string;
  created: number;
  model: string;
}

export function newMeta(prefix: "chatcmpl" | "cmpl", model: string): Meta {
  const id = `${prefix}-${crypto.randomUUID().replaceAll("-", "")}`;
  return { id, created: Math.floor(Date.now() / 1000), model };
}

export interface Finished {
  text: string;
  finish: FinishReason;
  /** Chat only: thinking before the answer, a tool call instead of text, logprobs when asked. */
  reasoning?: string;
  call?: PlannedCall | undefined;
  logprobs?: LogprobEntry[] | undefined;
}

export type ChatFinish = FinishReason | "tool_calls";

/** A tool call that ran to its end is finish_reason "tool_calls", as OpenAI reports it. */
export function chatFinish(finish: FinishReason, call: PlannedCall | undefined): ChatFinish {
  return call && finish === "stop" ? "tool_calls" : finish;
}

function chatMessage(c: Finished) {
  const message: Record<string, unknown> = { role: "assistant" };
  if (c.reasoning) message.reasoning_content = c.reasoning;
  if (c.call) {
    message.content = null;
    message.tool_calls = [{
      id: c.call.id,
      type: "function",
      function: { name: c.call.name, arguments: c.text },
    }];
  } else message.content = c.text;
  message.refusal = null;
  return message;
}

const fingerprint = "llmgw-sim";

export function chatCompletion(meta: Meta, choices: Finished[], use: Usage, timings: Timings) {
  return {
    ...meta,
    object: "chat.completion",
    system_fingerprint: fingerprint,
    choices: choices.map((c, index) => ({
      index,
      message: chatMessage(c),
      logprobs: c.logprobs ? { content: c.logprobs, refusal: null } : null,
      finish_reason: chatFinish(c.finish, c.call),
    })),
    usage: use,
    timings,
  };
}

export interface ChatDelta {
  index: number;
  delta: {
    role?: "assistant";
    content?: string | null;
    reasoning_content?: string;
    tool_calls?: unknown[];
  };
  finish_reason: ChatFinish | null;
  logprobs?: { content: LogprobEntry[] } | null;
}

/** `usage: null` on every chunk but the last is how OpenAI marks a stream that will carry it. */
export function chatChunk(meta: Meta, choices: ChatDelta[], withUsage: boolean) {
  return {
    ...meta,
    object: "chat.completion.chunk",
    system_fingerprint: fingerprint,
    choices: choices.map((c) => ({ ...c, logprobs: c.logprobs ?? null })),
    ...(withUsage ? { usage: null } : {}),
  };
}

export function textCompletion(meta: Meta, choices: Finished[], use: Usage, timings: Timings) {
  return {
    ...meta,
    object: "text_completion",
    system_fingerprint: fingerprint,
    choices: choices.map((c, index) => ({
      text: c.text,
      index,
      logprobs: null,
      finish_reason: c.finish,
    })),
    usage: use,
    timings,
  };
}

export function textChunk(
  meta: Meta,
  choice: { index: number; text: string; finish_reason: FinishReason | null },
  withUsage: boolean,
) {
  return {
    ...meta,
    object: "text_completion",
    system_fingerprint: fingerprint,
    choices: [{ ...choice, logprobs: null }],
    ...(withUsage ? { usage: null } : {}),
  };
}

/** The closing chunk of a stream asked for `include_usage`: no choices, just the counts. */
export function usageChunk(
  meta: Meta,
  object: "chat.completion.chunk" | "text_completion",
  use: Usage,
  timings: Timings,
) {
  return { ...meta, object, system_fingerprint: fingerprint, choices: [], usage: use, timings };
}
