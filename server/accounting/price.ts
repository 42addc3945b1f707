/**
 * Prices and costs, in micro-units of currency per 1,000 tokens. Costs always round up: rounding
 * down would make a stream of tiny requests free, exactly the traffic a quota exists to bound.
 */
import { eq } from "drizzle-orm";
import type { Store } from "../../db/store.ts";
import { models } from "../../db/schema.ts";
import { AppError } from "../errors.ts";

export interface Price {
  promptPer1k: number;
  completionPer1k: number;
  /** Prompt tokens the engine read from its cache; 0 charges them at the prompt rate. */
  cachedPer1k: number;
}

export const zeroPrice: Price = { promptPer1k: 0, completionPer1k: 0, cachedPer1k: 0 };

export function isZero(p: Price): boolean {
  return p.promptPer1k === 0 && p.completionPer1k === 0 && p.cachedPer1k === 0;
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

/** Per-model prices in memory (from the models table's price columns), with a default. */
export class PriceBook {
  readonly #byModel = new Map<string, Price>();

  private constructor(private readonly deps: { store: Store; defaultPrice: Price }) {}

  static async load(deps: { store: Store; defaultPrice: Price }): Promise<PriceBook> {
    const book = new PriceBook(deps);
    for (const m of await deps.store.db.select().from(models)) {
      if (m.pricePrompt === null && m.priceCompletion === null && m.priceCached === null) continue;
      book.#byModel.set(m.name, {
        promptPer1k: m.pricePrompt ?? 0,
        completionPer1k: m.priceCompletion ?? 0,
        cachedPer1k: m.priceCached ?? 0,
      });
    }
    return book;
  }

  get defaultPrice(): Price {
    return this.deps.defaultPrice;
  }

  priceOf(model: string): Price {
    return this.#byModel.get(model) ?? this.deps.defaultPrice;
  }

  list(): { model: string; price: Price }[] {
    return [...this.#byModel].map(([model, price]) => ({ model, price }));
  }

  /** Sets (or, with null, clears back to the default) one model's price. */
  async set(model: string, price: Price | null): Promise<void> {
    const rows = await this.deps.store.write((tx) =>
      tx.update(models).set({
        pricePrompt: price?.promptPer1k ?? null,
        priceCompletion: price?.completionPer1k ?? null,
        priceCached: price?.cachedPer1k ?? null,
      }).where(eq(models.name, model)).returning({ name: models.name })
    );
    if (rows.length === 0) throw new AppError("model_not_found", { model }, "model");
    if (price) this.#byModel.set(model, price);
    else this.#byModel.delete(model);
  }
}
