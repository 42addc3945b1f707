/**
 * An answer as the cache keeps it, and given back: a whole answer as it was sent; a stream as its
 * content events, with the usage chunk (for a client that asks for it) and `[DONE]` made anew,
 * all in one write, as the relay sends one engine read.
 */
import { isRecord, safeJson } from "../router/json_fields.ts";
import type { CachedAnswer, CacheEntry } from "./answer_cache.ts";

const encoder = new TextEncoder();
const nullUsage = /,"usage":null|"usage":null,?/g;

export interface AnswerUsage {
  promptTokens: number;
  completionTokens: number;
}

/** A whole (not streamed) answer as the client was sent it. */
export function wholeAnswer(
  body: Uint8Array<ArrayBuffer>,
  contentType: string,
  usage: AnswerUsage,
  servedModel: string,
): CachedAnswer {
  return { shape: "json", body, contentType, ...usage, servedModel, head: undefined };
}

/**
 * A stream as the client was sent it, reduced to its content events: without `[DONE]`, the usage
 * chunk and the `"usage":null` fields a client that asked for usage gets. Undefined when an event
 * is not a one-line `data:` event, which the cache does not try to give back the same.
 */
export function streamedAnswer(
  sent: string,
  usage: AnswerUsage,
  servedModel: string,
): CachedAnswer | undefined {
  const kept: string[] = [];
  let head: Record<string, unknown> | undefined;
  for (const ev of sent.split("\n\n")) {
    if (ev === "" || ev === "data: [DONE]") continue;
    if (!ev.startsWith("data: {") || ev.includes("\n")) return undefined;
    let data = ev.slice(6);
    if (data.includes('"usage":{')) {
      const chunk = safeJson(data);
      if (!isRecord(chunk)) return undefined;
      delete chunk.usage;
      if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) continue;
      data = JSON.stringify(chunk);
    } else if (data.includes('"usage":null')) {
      data = data.replace(nullUsage, "");
    }
    head ??= headOf(data);
    kept.push(`data: ${data}\n\n`);
  }
  if (!head) return undefined;
  return {
    shape: "events",
    body: encoder.encode(kept.join("")),
    contentType: "text/event-stream",
    ...usage,
    servedModel,
    head,
  };
}

/**
 * A hit as the client gets it: the answer in its shape, `x-llmgw-cache: hit` (with the similarity
 * for a similar question), `x-llmgw-served-model` as when it was first answered, and `headers`
 * (the limits').
 */
export function cachedResponse(
  hit: { entry: CacheEntry; how: "exact" | "similar"; similarity: number },
  includeUsage: boolean,
  headers: Record<string, string>,
): { response: Response; bytesOut: number } {
  const a = hit.entry.answer;
  const bytes = answerBytes(a, includeUsage);
  const h: Record<string, string> = {
    ...headers,
    "content-type": a.contentType,
    "x-llmgw-served-model": a.servedModel,
    "x-llmgw-cache": "hit",
  };
  if (a.shape === "events") h["cache-control"] = "no-cache";
  if (hit.how === "similar") h["x-llmgw-cache-similarity"] = hit.similarity.toFixed(3);
  return { response: new Response(bytes, { status: 200, headers: h }), bytesOut: bytes.byteLength };
}

/** The body a cached answer is given back with: a stream ends with usage (when asked) and `[DONE]`. */
export function answerBytes(a: CachedAnswer, includeUsage: boolean): Uint8Array<ArrayBuffer> {
  if (a.shape === "json") return a.body;
  const usage = includeUsage ? `data: ${JSON.stringify(usageChunk(a))}\n\n` : "";
  const tail = encoder.encode(`${usage}data: [DONE]\n\n`);
  const out = new Uint8Array(a.body.byteLength + tail.byteLength);
  out.set(a.body);
  out.set(tail, a.body.byteLength);
  return out;
}

function usageChunk(a: CachedAnswer) {
  return {
    ...a.head,
    choices: [],
    usage: {
      prompt_tokens: a.promptTokens,
      completion_tokens: a.completionTokens,
      total_tokens: a.promptTokens + a.completionTokens,
    },
  };
}

/** What every chunk of the stream repeats: its id, object, time and model. */
function headOf(data: string): Record<string, unknown> | undefined {
  const chunk = safeJson(data);
  if (!isRecord(chunk)) return undefined;
  const head: Record<string, unknown> = {};
  for (const k of ["id", "object", "created", "model", "system_fingerprint"]) {
    if (chunk[k] !== undefined) head[k] = chunk[k];
  }
  return head;
}
