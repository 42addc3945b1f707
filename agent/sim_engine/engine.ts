/** The simulated engine's options and the shared state every route works on. */
import type { Logger } from "../../core/log.ts";
import { silentLogger } from "../../core/log.ts";
import type { PromptPrefix } from "./prompt_cache.ts";
import { EngineCounters, SlotPool } from "./slots.ts";
import type { SimJudgeOptions } from "./judge.ts";
import type { SimQuirkMode } from "./llama_quirks.ts";

export interface SimEngineOptions {
  /** Model name listed by /v1/models; responses echo the request's model instead when given. */
  model?: string | undefined;
  /** Generation speed of each slot. */
  tokensPerSecond?: number | undefined;
  /** Prompt processing speed; defaults to ten times the generation speed, as on real hardware. */
  promptTokensPerSecond?: number | undefined;
  slots?: number | undefined;
  /** Context size of each slot, in tokens: bounds prompt plus generation, like llama-server -c. */
  contextPerSlot?: number | undefined;
  embeddingDims?: number | undefined;
  /**
   * "random": a text's vector is noise seeded by its hash (any change, a new vector). "lexical": a
   * hashed bag of words, so texts that share words lie near each other, standing in for a semantic
   * model in tests of similarity search.
   */
  embeddingMode?: EmbeddingMode | undefined;
  /** Offer /v1/rerank, as llama-server does when started with --reranking. */
  reranking?: boolean | undefined;
  /** max_tokens when the request gives none. */
  defaultMaxTokens?: number | undefined;
  /** Bearer key required on every route but /health (llama-server's LLAMA_API_KEY). */
  apiKey?: string | undefined;
  logger?: Logger | undefined;
  /** Judge mode: every chat request is answered with a guard verdict (judge.ts). */
  judge?: SimJudgeOptions | undefined;
  /** "llamacpp": a client's mistakes get llama-server's 500s (llama_quirks.ts). */
  quirks?: SimQuirkMode | undefined;
  /** Aborting it stops every generation and empties the queue, so a server can close promptly. */
  signal?: AbortSignal | undefined;
}

export const embeddingModes = ["random", "lexical"] as const;
export type EmbeddingMode = typeof embeddingModes[number];

export interface Engine {
  readonly model: string;
  readonly tokensPerSecond: number;
  readonly promptTokensPerSecond: number;
  readonly embeddingDims: number;
  readonly embeddingMode: EmbeddingMode;
  readonly reranking: boolean;
  readonly defaultMaxTokens: number;
  readonly apiKey: string | undefined;
  readonly log: Logger;
  readonly pool: SlotPool;
  readonly counters: EngineCounters;
  /** Slot caches saved with `/slots/N?action=save`, by file name (llama-server's files). */
  readonly savedSlots: Map<string, PromptPrefix>;
  readonly shutdown: AbortSignal;
  readonly judge: SimJudgeOptions | undefined;
  /** Unix seconds, for the `created` field of /v1/models. */
  readonly startedAt: number;
}

export function createEngine(opts: SimEngineOptions): Engine {
  const tokensPerSecond = positive("tokensPerSecond", opts.tokensPerSecond ?? 200);
  return {
    model: opts.model ?? "demo",
    tokensPerSecond,
    promptTokensPerSecond: positive(
      "promptTokensPerSecond",
      opts.promptTokensPerSecond ?? tokensPerSecond * 10,
    ),
    embeddingDims: whole("embeddingDims", opts.embeddingDims ?? 64),
    embeddingMode: opts.embeddingMode ?? "random",
    reranking: opts.reranking ?? false,
    defaultMaxTokens: whole("defaultMaxTokens", opts.defaultMaxTokens ?? 64),
    apiKey: opts.apiKey || undefined,
    log: opts.logger ?? silentLogger,
    pool: new SlotPool(
      whole("slots", opts.slots ?? 4),
      whole("contextPerSlot", opts.contextPerSlot ?? 4096),
    ),
    counters: new EngineCounters(),
    savedSlots: new Map(),
    shutdown: opts.signal ?? new AbortController().signal,
    judge: opts.judge,
    startedAt: Math.floor(Date.now() / 1000),
  };
}

function positive(name: string, v: number): number {
  if (!(v > 0) || !Number.isFinite(v)) throw new RangeError(`${name} must be a positive number`);
  return v;
}

function whole(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new RangeError(`${name} must be a whole number >= 1`);
  return v;
}
