/**
 * Prices and costs, in micro-units of the cluster's currency (`accounting.currency`) per 1,000
 * tokens. Costs always round up: rounding
 * down would make a stream of tiny requests free, exactly the traffic a quota exists to bound.
 */
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog, ModelEntry } from "../router/catalog.ts";

export interface Price {
  promptPer1k: number;
  completionPer1k: number;
  /** Prompt tokens the engine read from its cache; 0 charges them at the prompt rate. */
  cachedPer1k: number;
  /**
   * Every token (prompt and completion) of an answer the gateway's answer cache gave back, no
   * engine asked; 0, the default, charges nothing for it.
   */
  cacheHitPer1k: number;
}

/** An answer from the answer cache: its tokens at the cache price, rounded up like any cost. */
export function cacheHitCost(p: Price, prompt: number, completion: number): number {
  return Math.ceil(((Math.max(0, prompt) + Math.max(0, completion)) * p.cacheHitPer1k) / 1000);
}

/**
 * Cached tokens are counted within prompt tokens (as OpenAI reports them) and clamped into
 * [0, prompt]: more cached than prompt is an engine's miscount, not a refund.
 */
export function cost(p: Price, prompt: number, cached: number, completion: number): number {
  const pr = Math.max(0, prompt);
  const c = Math.min(Math.max(0, cached), pr);
  const cachedRate = p.cachedPer1k || p.promptPer1k;
  return Math.ceil(((pr - c) * p.promptPer1k + c * cachedRate) / 1000) +
    Math.ceil((Math.max(0, completion) * p.completionPer1k) / 1000);
}

/**
 * Per-model prices, read from the catalog (the one place a model's prices live, in memory), with
 * a default for models that set none.
 */
export class PriceBook {
  constructor(
    private readonly deps: { catalog: ModelCatalog; defaultPrice: Price; currency?: string },
  ) {}

  /** The ISO 4217 code every price, cost and budget is in. */
  get currency(): string {
    return this.deps.currency ?? "USD";
  }

  get defaultPrice(): Price {
    return this.deps.defaultPrice;
  }

  priceOf(model: string): Price {
    const m = this.deps.catalog.get(model);
    return m ? priceOfEntry(m) ?? this.deps.defaultPrice : this.deps.defaultPrice;
  }

  list(): { model: string; price: Price }[] {
    return this.deps.catalog.list().flatMap((m) => {
      const price = priceOfEntry(m);
      return price ? [{ model: m.name, price }] : [];
    });
  }

  /** Sets (or, with null, clears back to the default) one model's price. */
  async set(model: string, price: Price | null): Promise<void> {
    const done = await this.deps.catalog.setPrices(model, {
      pricePrompt: price?.promptPer1k ?? null,
      priceCompletion: price?.completionPer1k ?? null,
      priceCached: price?.cachedPer1k ?? null,
      priceCacheHit: price?.cacheHitPer1k ?? null,
    });
    if (!done) throw new AppError("model_not_found", { model }, "model");
  }
}

function priceOfEntry(m: ModelEntry): Price | undefined {
  if (
    m.pricePrompt === null && m.priceCompletion === null && m.priceCached === null &&
    m.priceCacheHit === null
  ) {
    return undefined;
  }
  return {
    promptPer1k: m.pricePrompt ?? 0,
    completionPer1k: m.priceCompletion ?? 0,
    cachedPer1k: m.priceCached ?? 0,
    cacheHitPer1k: m.priceCacheHit ?? 0,
  };
}
