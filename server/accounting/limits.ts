/**
 * Limits at every level of the tree, in memory. A level only narrows the one above: the
 * effective value of a number is the smallest set on the chain, and a model is allowed only when
 * every level with a list allows it. An unset value inherits.
 */
import { and, eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import type { Store } from "../../db/store.ts";
import { limits } from "../../db/schema.ts";
import type { Scope } from "../tenancy/tenancy.ts";

export const numericLimits = [
  "rpm",
  "tpm",
  "budgetDayMicros",
  "budgetMonthMicros",
  "budgetDayTokens",
  "budgetMonthTokens",
  "maxKeyTtlMs",
  "maxParallel",
  "weight",
] as const;
export type NumericLimit = (typeof numericLimits)[number];

export type LimitSet = { [K in NumericLimit]: number | null } & {
  models: string[] | null;
  /** MCP tools granted at this level (`jira.*`); unlike models, levels add up. */
  tools: string[] | null;
} & CacheLimits;

/**
 * The answer cache's settings at one level. Unlike the limits above they do not only narrow: the
 * nearest level that sets one decides, so an organisation can turn the cache on for its projects
 * and one project can turn it off again.
 */
export interface CacheLimits {
  cache: boolean | null;
  cacheTemperature: boolean | null;
  cacheSimilarPermille: number | null;
}

/** What a chain of levels makes of the cache settings (off where none sets them). */
export interface CachePolicy {
  on: boolean;
  /** Requests sampled above temperature 0 are cached too. */
  anyTemperature: boolean;
  /** Cosine similarity from which a similar question reuses an answer; null: exact only. */
  similarAt: number | null;
}
export type LimitPatch = Partial<LimitSet>;

export const emptyLimits: LimitSet = {
  rpm: null,
  tpm: null,
  budgetDayMicros: null,
  budgetMonthMicros: null,
  budgetDayTokens: null,
  budgetMonthTokens: null,
  maxKeyTtlMs: null,
  maxParallel: null,
  weight: null,
  models: null,
  tools: null,
  cache: null,
  cacheTemperature: null,
  cacheSimilarPermille: null,
};

/** An effective number and the level that set it (the tightest one). */
export interface Bound {
  value: number;
  scope: Scope;
}

export type Effective = { [K in NumericLimit]: Bound | null } & {
  /** Each level's list, widest first; a model must match one pattern of every list. */
  models: { patterns: string[]; scope: Scope }[];
  /** Each level's MCP tool grants, widest first; a tool granted at any level is granted. */
  tools: { patterns: string[]; scope: Scope }[];
};

const globCache = new Map<string, RegExp>();
export function globMatch(pattern: string, name: string): boolean {
  let re = globCache.get(pattern);
  if (!re) {
    const body = pattern.split("").map((ch) =>
      ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\/]/g, "\\$&")
    ).join("");
    re = new RegExp(`^${body}$`);
    if (globCache.size > 1000) globCache.clear();
    globCache.set(pattern, re);
  }
  return re.test(name);
}

const keyOf = (s: Scope) => `${s.kind}:${s.id}`;
export const cacheOff: CachePolicy = { on: false, anyTemperature: false, similarAt: null };

export interface LimitsBookDeps {
  store: Store;
  clock: Clock;
  /** Told of each change, so the other control planes' books reload. */
  changes?: ChangeFeed;
}

export class LimitsBook {
  readonly #byScope = new Map<string, LimitSet>();
  /** Whether any level turns the answer cache on: when none does, a request asks nothing more. */
  #anyCache = false;

  private constructor(private readonly deps: LimitsBookDeps) {}

  static async load(deps: LimitsBookDeps): Promise<LimitsBook> {
    const book = new LimitsBook(deps);
    await book.reload();
    return book;
  }

  /** Reads every level's limits again (another control plane changed them). */
  async reload(): Promise<void> {
    const rows = await this.deps.store.db.select().from(limits);
    this.#byScope.clear();
    for (const r of rows) {
      const { scopeKind, scopeId, updatedAt: _, ...set } = r;
      this.#byScope.set(keyOf({ kind: scopeKind, id: scopeId }), set);
    }
    this.#noteCache();
  }

  get anyCache(): boolean {
    return this.#anyCache;
  }

  #noteCache(): void {
    this.#anyCache = false;
    for (const set of this.#byScope.values()) if (set.cache === true) this.#anyCache = true;
  }

  get(scope: Scope): LimitSet {
    return this.#byScope.get(keyOf(scope)) ?? emptyLimits;
  }

  /** Partial by default: only the fields given change. `replace` writes the whole set. */
  async set(scope: Scope, patch: LimitPatch, replace = false): Promise<LimitSet> {
    const next: LimitSet = { ...(replace ? emptyLimits : this.get(scope)), ...patch };
    const row = {
      scopeKind: scope.kind,
      scopeId: scope.id,
      ...next,
      updatedAt: this.deps.clock.now(),
    };
    await this.deps.store.write((tx) =>
      tx.insert(limits).values(row).onConflictDoUpdate({
        target: [limits.scopeKind, limits.scopeId],
        set: row,
      })
    );
    this.#byScope.set(keyOf(scope), next);
    this.#noteCache();
    this.deps.changes?.changed("limits");
    return next;
  }

  async clear(scope: Scope): Promise<void> {
    await this.deps.store.write((tx) =>
      tx.delete(limits).where(and(eq(limits.scopeKind, scope.kind), eq(limits.scopeId, scope.id)))
    );
    this.#byScope.delete(keyOf(scope));
    this.#noteCache();
    this.deps.changes?.changed("limits");
  }

  effective(chain: Scope[]): Effective {
    const out = { models: [], tools: [] } as unknown as Effective;
    for (const k of numericLimits) out[k] = null;
    for (const scope of chain) {
      const set = this.#byScope.get(keyOf(scope));
      if (!set) continue;
      for (const k of numericLimits) {
        const v = set[k];
        if (v !== null && (out[k] === null || v < out[k]!.value)) out[k] = { value: v, scope };
      }
      if (set.models) out.models.push({ patterns: set.models, scope });
      if (set.tools) out.tools.push({ patterns: set.tools, scope });
    }
    return out;
  }

  /** The level whose model list refuses `model`, or null when every level allows it. */
  modelRefusedBy(eff: Effective, model: string): Scope | null {
    for (const level of eff.models) {
      if (!level.patterns.some((p) => globMatch(p, model))) return level.scope;
    }
    return null;
  }

  /**
   * Whether `tool` (`server.tool`) is granted: some level on the chain names it. Grants add up
   * rather than narrow because a tool reaches a company system: nothing is offered until
   * someone grants it, and none granted anywhere means none.
   */
  toolGranted(eff: Effective, tool: string): boolean {
    return eff.tools.some((level) => level.patterns.some((p) => globMatch(p, tool)));
  }

  /** The cache settings of a chain (widest first): the nearest level that sets each decides. */
  cachePolicy(chain: Scope[]): CachePolicy {
    if (!this.#anyCache) return cacheOff;
    const found: CacheLimits = { cache: null, cacheTemperature: null, cacheSimilarPermille: null };
    for (let i = chain.length - 1; i >= 0; i--) {
      const set = this.#byScope.get(keyOf(chain[i]!));
      if (!set) continue;
      found.cache ??= set.cache;
      found.cacheTemperature ??= set.cacheTemperature;
      found.cacheSimilarPermille ??= set.cacheSimilarPermille;
    }
    return {
      on: found.cache === true,
      anyTemperature: found.cacheTemperature === true,
      similarAt: found.cacheSimilarPermille === null ? null : found.cacheSimilarPermille / 1000,
    };
  }

  /** Limits that bind per level, for the rate limiter: each level's own rpm/tpm. */
  own(scope: Scope): LimitSet | undefined {
    return this.#byScope.get(keyOf(scope));
  }
}
