/**
 * An OpenAI chat completion turned into an Anthropic message: content blocks (thinking when
 * asked, text, tool_use), the stop reason in Anthropic's words, and usage with cached prompt
 * tokens apart when the engine reports them.
 */
import { cachedPromptTokens, isRecord } from "../router/json_fields.ts";
import { fnv1a } from "../router/hash.ts";
import { type AnthropicErrorBody, anthropicErrorBody } from "./error_body.ts";

type Json = Record<string, unknown>;

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
}

export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Json };

export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: unknown;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

/** What the translation needs from the request: the model named, thinking shown, stops asked. */
export interface MessageContext {
  id: string;
  model: unknown;
  thinking: boolean;
  stopSequences: string[];
}

export function toMessage(completion: unknown, ctx: MessageContext): AnthropicMessage {
  const choice = firstChoice(completion);
  const message = isRecord(choice?.message) ? choice.message : {};
  const content: ContentBlock[] = [];
  const reasoning = reasoningOf(message);
  if (ctx.thinking && reasoning) {
    content.push({
      type: "thinking",
      thinking: reasoning,
      signature: thinkingSignature(reasoning),
    });
  }
  if (typeof message.content === "string" && message.content !== "") {
    content.push({ type: "text", text: message.content });
  } else if (Array.isArray(message.content)) {
    const text = message.content.map((p) => (isRecord(p) ? String(p.text ?? "") : "")).join("");
    if (text) content.push({ type: "text", text });
  }
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  calls.forEach((call, i) => {
    if (!isRecord(call)) return;
    const fn = isRecord(call.function) ? call.function : {};
    content.push({
      type: "tool_use",
      id: typeof call.id === "string" && call.id ? call.id : `toolu_${ctx.id}_${i}`,
      name: typeof fn.name === "string" ? fn.name : "",
      input: toolInput(fn.arguments),
    });
  });
  const stop = stopOf(choice?.finish_reason, choice?.stop_reason, ctx.stopSequences, calls.length);
  return {
    id: ctx.id,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    ...stop,
    usage: usageOf(completion),
  };
}

/**
 * Anthropic's clients expect every thinking block to carry an opaque signature and send it back
 * with the block; llmgw drops earlier thinking before the engine sees it, so the signature only
 * has to be present and stable for the same text.
 */
export function thinkingSignature(thinking: string): string {
  return btoa(`llmgw:${fnv1a(thinking).toString(16).padStart(8, "0")}:${thinking.length}`);
}

/** The reasoning llama.cpp and vLLM put beside the answer (`reasoning_content`, or `reasoning`). */
export function reasoningOf(m: Json): string {
  const r = m.reasoning_content ?? m.reasoning;
  return typeof r === "string" ? r : "";
}

/**
 * Tool arguments are a JSON text from the model; Anthropic's `input` is an object. Text that is not
 * a JSON object is kept whole under `_raw_arguments` rather than dropped.
 */
export function toolInput(args: unknown): Json {
  if (isRecord(args)) return args;
  if (typeof args !== "string" || args.trim() === "") return {};
  try {
    const parsed = JSON.parse(args);
    if (isRecord(parsed)) return parsed;
  } catch {
    // Kept below.
  }
  return { _raw_arguments: args };
}

/**
 * OpenAI's finish_reason in Anthropic's words. "stop" is a stop sequence only when the engine
 * names the one that matched (vLLM's `stop_reason`); llama.cpp does not say, so it is end_turn.
 */
export function stopOf(
  finish: unknown,
  engineStop: unknown,
  stopSequences: string[],
  toolCalls: number,
): { stop_reason: StopReason; stop_sequence: string | null } {
  if (finish === "tool_calls" || finish === "function_call" || toolCalls > 0 && finish === "stop") {
    return { stop_reason: "tool_use", stop_sequence: null };
  }
  if (finish === "length") return { stop_reason: "max_tokens", stop_sequence: null };
  if (finish === "content_filter") return { stop_reason: "refusal", stop_sequence: null };
  if (typeof engineStop === "string" && stopSequences.includes(engineStop)) {
    return { stop_reason: "stop_sequence", stop_sequence: engineStop };
  }
  return { stop_reason: "end_turn", stop_sequence: null };
}

/**
 * Anthropic counts cached prompt tokens apart from input_tokens; the router reads them from the
 * engine's answer (`cachedPromptTokens`), and when the answer does not say they are left out.
 */
export function usageOf(body: unknown): AnthropicUsage {
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : {};
  const prompt = count(usage.prompt_tokens) ?? 0;
  const output = count(usage.completion_tokens) ?? 0;
  const cached = cachedPromptTokens(body);
  if (cached === undefined) return { input_tokens: prompt, output_tokens: output };
  const read = Math.min(cached, prompt);
  return { input_tokens: prompt - read, output_tokens: output, cache_read_input_tokens: read };
}

/** An engine's error answer (OpenAI's shape, or any text) in Anthropic's envelope. */
export function toErrorBody(status: number, text: string, requestId?: string): AnthropicErrorBody {
  let message = text.trim() || `the engine answered with status ${status}`;
  try {
    const parsed = JSON.parse(text);
    const err = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
    if (err && typeof err.message === "string") message = err.message;
  } catch {
    // Not JSON: the text is the message.
  }
  return anthropicErrorBody(status, message, requestId);
}

function firstChoice(body: unknown): Json | undefined {
  const choices = isRecord(body) && Array.isArray(body.choices) ? body.choices : [];
  const first = choices.find((c) => isRecord(c) && (c.index ?? 0) === 0) ?? choices[0];
  return isRecord(first) ? first : undefined;
}

function count(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined;
}
