/**
 * Multi-turn conversations against an OpenAI-compatible chat endpoint, to see how much of each
 * prompt the engines reuse from their prompt caches. N conversations take turns (turn 1 of each,
 * then turn 2 of each, ...), every request repeating the conversation so far plus a new user
 * message, streamed so time to first token is measured. The cached share is of prompt tokens:
 * from `usage.prompt_tokens_details.cached_tokens`, else from llama.cpp's `timings` (prompt tokens
 * minus those it computed). Unique openings keep conversations from sharing a prefix. Given
 * several base URLs (control planes behind one store), request k goes to URL k mod n, as a load
 * balancer that takes no notice of conversations would send them.
 */
import { readUsage } from "../server/router/json_fields.ts";
import { summarize, type Summary } from "./percentiles.ts";

export interface MultiturnOptions {
  /** OpenAI base URL, e.g. `http://127.0.0.1:8080/v1`; several: the requests go round them. */
  url: string | readonly string[];
  /** Sent as a bearer token; never part of a result. */
  key?: string | undefined;
  model: string;
  conversations: number;
  turns: number;
  /** Words in each conversation's opening (system) message and in each user message. */
  openingWords: number;
  turnWords: number;
  maxTokens: number;
  /** Sent as `x-llmgw-profile` (a gateway's routing profile); other servers ignore it. */
  profile?: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Sends each request; a test can route it anywhere. Default: `fetch`. */
  fetch?: typeof fetch | undefined;
}

export interface MultiturnResult {
  conversations: number;
  turns: number;
  profile: string | null;
  requests: number;
  failed: number;
  promptTokens: number;
  cachedTokens: number;
  /** cachedTokens / promptTokens, 0..1. */
  cachedShare: number;
  /** Turn 2 onwards only: turn 1 has nothing to reuse. */
  cachedShareAfterFirst: number;
  /** Time to first token per turn (index 0 is turn 1), in ms. */
  ttftByTurn: (Summary | null)[];
}

interface Message {
  role: string;
  content: string;
}

export async function runMultiturn(o: MultiturnOptions): Promise<MultiturnResult> {
  // A fresh label per run, so a run finds nothing an earlier one left in the caches.
  const run = crypto.randomUUID().slice(0, 8);
  const convos: Message[][] = Array.from({ length: o.conversations }, (_, i) => [
    { role: "system", content: words(`run ${run} conversation ${i} opening`, o.openingWords) },
  ]);
  const ttfts: number[][] = Array.from({ length: o.turns }, () => []);
  const urls = typeof o.url === "string" ? [o.url] : o.url;
  let prompt = 0, cached = 0, laterPrompt = 0, laterCached = 0, failed = 0, requests = 0;
  for (let t = 0; t < o.turns; t++) {
    for (let i = 0; i < convos.length; i++) {
      if (o.signal?.aborted) break;
      const messages = convos[i]!;
      messages.push({ role: "user", content: words(`conversation ${i} turn ${t}`, o.turnWords) });
      const turn = await sendTurn(o, urls[requests++ % urls.length]!, messages);
      if (!turn) {
        failed++;
        messages.pop();
        continue;
      }
      messages.push({ role: "assistant", content: turn.text });
      ttfts[t]!.push(turn.ttftMs);
      prompt += turn.promptTokens;
      cached += turn.cachedTokens;
      if (t > 0) {
        laterPrompt += turn.promptTokens;
        laterCached += turn.cachedTokens;
      }
    }
  }
  return {
    conversations: o.conversations,
    turns: o.turns,
    profile: o.profile ?? null,
    requests,
    failed,
    promptTokens: prompt,
    cachedTokens: cached,
    cachedShare: prompt > 0 ? cached / prompt : 0,
    cachedShareAfterFirst: laterPrompt > 0 ? laterCached / laterPrompt : 0,
    ttftByTurn: ttfts.map((xs) => summarize(xs)),
  };
}

interface Turn {
  text: string;
  ttftMs: number;
  promptTokens: number;
  cachedTokens: number;
}

async function sendTurn(
  o: MultiturnOptions,
  url: string,
  messages: Message[],
): Promise<Turn | undefined> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.profile) headers["x-llmgw-profile"] = o.profile;
  const signals = [AbortSignal.timeout(o.timeoutMs), ...(o.signal ? [o.signal] : [])];
  const started = performance.now();
  try {
    const res = await (o.fetch ?? fetch)(`${url.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers,
      signal: AbortSignal.any(signals),
      body: JSON.stringify({
        model: o.model,
        messages,
        max_tokens: o.maxTokens,
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      return undefined;
    }
    return await readStream(res.body, started);
  } catch {
    return undefined;
  }
}

/** The answer's text, when its first content arrived, and the usage chunk's counts. */
async function readStream(body: ReadableStream<Uint8Array>, started: number): Promise<Turn> {
  const turn: Turn = { text: "", ttftMs: NaN, promptTokens: 0, cachedTokens: 0 };
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") continue;
      readEvent(data, turn, started);
    }
  }
  if (Number.isNaN(turn.ttftMs)) turn.ttftMs = performance.now() - started;
  return turn;
}

function readEvent(data: string, turn: Turn, started: number): void {
  let chunk: { choices?: { delta?: { content?: unknown } }[]; usage?: unknown };
  try {
    chunk = JSON.parse(data);
  } catch {
    return;
  }
  const content = chunk.choices?.[0]?.delta?.content;
  if (typeof content === "string" && content) {
    if (Number.isNaN(turn.ttftMs)) turn.ttftMs = performance.now() - started;
    turn.text += content;
  }
  if (chunk.usage) {
    const u = readUsage(chunk);
    turn.promptTokens = u.promptTokens;
    turn.cachedTokens = u.cachedTokens;
  }
}

/** `n` words, unique to `label` from the first word on, so no two conversations share a prefix. */
function words(label: string, n: number): string {
  const vocab = ["river", "stone", "light", "garden", "window", "paper", "cloud", "signal"];
  let h = 0;
  for (const ch of label) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  const out = [label];
  for (let i = 1; i < n; i++) {
    h = (Math.imul(h, 1103515245) + 12345) >>> 0;
    out.push(vocab[h >>> 29]!);
  }
  return out.join(" ");
}
