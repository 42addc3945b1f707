/**
 * The answer cache on the request path: dispatch asks `lookup` once, after admission and before
 * choosing a replica. Off (undefined) unless the key's levels turn the cache on; otherwise a
 * kept answer (exact, or for a similar question), or a keeper the relay hands the answer to once
 * it ended well.
 */
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { ModelEntry } from "../router/catalog.ts";
import type { GuardPass } from "../guard/guard_pass.ts";
import type { CachePolicy } from "../accounting/limits.ts";
import type { AnswerCache, CacheEntry } from "./answer_cache.ts";
import { exactKey, type KeyParts, similarQuestion, tenantOf } from "./cache_key.ts";
import { type AnswerUsage, streamedAnswer, wholeAnswer } from "./cached_answer.ts";

/** What the cache reads of one request. */
export interface CacheAsk {
  key: ApiKeyInfo;
  path: string;
  body: Record<string, unknown>;
  entry: ModelEntry;
  stream: boolean;
  guard: GuardPass | undefined;
  signal: AbortSignal;
}

export type CacheLookup =
  | { kind: "hit"; entry: CacheEntry; how: "exact" | "similar"; similarity: number }
  | { kind: "miss"; keep: AnswerKeeper };

/** Takes the answer a miss got, once it ended well, from the model asked for. */
export interface AnswerKeeper {
  /** Answers larger than this are not kept (the relay stops collecting past it). */
  readonly maxBytes: number;
  whole(body: Uint8Array<ArrayBuffer>, contentType: string, usage: AnswerUsage): void;
  /** The stream as the client was sent it, events and all. */
  streamed(sent: string, usage: AnswerUsage): void;
}

/** A question's embedding (unit length), or undefined when it could not be had. */
export type Embed = (
  model: string,
  text: string,
  signal: AbortSignal,
) => Promise<Float32Array | undefined>;

export interface CacheStepDeps {
  cache: AnswerCache;
  /** What the key's levels say; `on: false` when none turns the cache on. */
  policyOf: (key: ApiKeyInfo) => CachePolicy;
  /** Embeds a question on the gateway's own account. */
  embed: Embed;
  /** A lookup that found nothing (the metrics' misses by model). */
  missed: (model: string) => void;
}

/** Generation paths: their answers vary with sampling unless the temperature is 0. */
const sampled = new Set(["/chat/completions", "/completions"]);
const cacheable = new Set(["/chat/completions", "/completions", "/embeddings"]);

export class AnswerCacheStep {
  constructor(private readonly deps: CacheStepDeps) {}

  async lookup(ask: CacheAsk): Promise<CacheLookup | undefined> {
    const policy = this.deps.policyOf(ask.key);
    if (!policy.on || !eligible(ask, policy)) return undefined;
    const parts: KeyParts = {
      tenant: tenantOf(ask.key),
      path: ask.path,
      stream: ask.stream,
      model: ask.entry,
      policies: ask.guard?.policies ?? [],
    };
    const key = exactKey(parts, ask.body);
    const exact = this.deps.cache.get(key);
    if (exact) return { kind: "hit", entry: exact, how: "exact", similarity: 1 };
    const similar = await this.#similar(ask, parts, policy);
    if (similar?.hit) {
      return { kind: "hit", entry: similar.hit, how: "similar", similarity: similar.score };
    }
    this.deps.missed(ask.entry.name);
    return { kind: "miss", keep: this.#keeper(key, ask.entry, similar?.keep) };
  }

  /** The nearest kept question of the same group, or what a new one is kept under. */
  async #similar(ask: CacheAsk, parts: KeyParts, policy: CachePolicy) {
    const model = this.deps.cache.options.embeddingModel;
    if (policy.similarAt === null || !model) return undefined;
    const q = similarQuestion(parts, ask.body);
    if (!q) return undefined;
    const vector = await this.deps.embed(model, q.question, ask.signal);
    if (!vector) return undefined;
    const near = this.deps.cache.nearest(q.group, vector, policy.similarAt);
    return {
      hit: near?.entry,
      score: near?.similarity ?? 0,
      keep: { group: q.group, vector },
    };
  }

  #keeper(
    key: string,
    entry: ModelEntry,
    similar: { group: string; vector: Float32Array } | undefined,
  ): AnswerKeeper {
    const cache = this.deps.cache;
    return {
      maxBytes: cache.options.maxEntryBytes,
      whole: (body, contentType, usage) =>
        cache.put(key, entry.name, wholeAnswer(body, contentType, usage, entry.name), similar),
      streamed: (sent, usage) => {
        const answer = streamedAnswer(sent, usage, entry.name);
        if (answer) cache.put(key, entry.name, answer, similar);
      },
    };
  }
}

/**
 * Whether the request may be answered from the cache at all. Never one whose values a guardrail
 * replaced and will put back (two callers' texts redacting alike would share the first caller's
 * values); a sampled one only at temperature 0, unless the levels say any temperature (a request
 * naming none gets the engine's default, which is above 0).
 */
function eligible(ask: CacheAsk, policy: CachePolicy): boolean {
  if (!cacheable.has(ask.path) || ask.guard?.restoring) return false;
  if (!sampled.has(ask.path) || policy.anyTemperature) return true;
  return ask.body.temperature === 0;
}
