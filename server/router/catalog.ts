/**
 * The model catalog: what models exist, kept in the store and mirrored in memory so the request
 * path never reads the store to find a model.
 */
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { ChangeFeed } from "../control/change_feed.ts";
import type { Store } from "../../db/store.ts";
import { models } from "../../db/schema.ts";

export type ModelEntry = typeof models.$inferSelect;
/** What a declaration gives; routing and price fields left out keep their defaults. */
export type ModelInput =
  & Pick<ModelEntry, "name" | "engine" | "source">
  & Partial<
    Pick<
      ModelEntry,
      | "description"
      | "args"
      | "routingProfile"
      | "fallbacks"
      | "slots"
      | "pricePrompt"
      | "priceCached"
      | "priceCacheHit"
      | "priceCompletion"
      | "priceBatchPercent"
      | "upstreamModel"
      | "externalKeys"
      | "def"
      | "facts"
      | "declaredIn"
      | "stopped"
      | "judge"
    >
  >
  & {
    /**
     * The pinned weights (server/weights/pin_source.ts); kept when an update leaves it out,
     * cleared by `null` (a source that changed is no longer what was pinned).
     */
    origin?: ModelEntry["origin"];
    allowPickle?: boolean;
  };

export interface CatalogDeps {
  store: Store;
  clock: Clock;
  /** Told of each change, so the other control planes' catalogs reload. */
  changes?: ChangeFeed;
}

export class ModelCatalog {
  #byName = new Map<string, ModelEntry>();
  /** Alias → model name, from each entry's `def.aliases`. */
  #aliases = new Map<string, string>();
  #listeners: ((entry: ModelEntry | undefined, name: string) => void)[] = [];

  private constructor(private readonly deps: CatalogDeps) {}

  static async load(deps: CatalogDeps): Promise<ModelCatalog> {
    const catalog = new ModelCatalog(deps);
    for (const row of await deps.store.db.select().from(models)) catalog.#set(row);
    return catalog;
  }

  /**
   * Reads the store again after another control plane changed it; listeners hear of each model
   * added, changed or removed.
   */
  async reload(): Promise<void> {
    const rows = await this.deps.store.db.select().from(models);
    const names = new Set(rows.map((r) => r.name));
    for (const row of rows) {
      const had = this.#byName.get(row.name);
      if (had && had.updatedAt === row.updatedAt) continue;
      this.#set(row);
      for (const fn of this.#listeners) fn(row, row.name);
    }
    for (const name of [...this.#byName.keys()]) {
      if (names.has(name)) continue;
      this.#unset(name);
      for (const fn of this.#listeners) fn(undefined, name);
    }
  }

  /** By name, or by one of its aliases. */
  get(name: string): ModelEntry | undefined {
    const byName = this.#byName.get(name);
    if (byName) return byName;
    const target = this.#aliases.get(name);
    return target ? this.#byName.get(target) : undefined;
  }

  /** The knowledge bases an alias carries (model_schema's alias_knowledge_bases); none for a name. */
  knowledgeBasesOf(name: string): string[] {
    const target = this.#aliases.get(name);
    if (!target || this.#byName.has(name)) return [];
    const def = this.#byName.get(target)?.def as
      | { aliasKnowledgeBases?: Record<string, string[]> }
      | null
      | undefined;
    return def?.aliasKnowledgeBases?.[name] ?? [];
  }

  #set(row: ModelEntry): void {
    this.#unset(row.name);
    this.#byName.set(row.name, row);
    const aliases = (row.def as { aliases?: unknown } | null)?.aliases;
    if (Array.isArray(aliases)) {
      for (const a of aliases) if (typeof a === "string") this.#aliases.set(a, row.name);
    }
  }

  #unset(name: string): void {
    this.#byName.delete(name);
    for (const [a, n] of this.#aliases) if (n === name) this.#aliases.delete(a);
  }

  /** Called after every change (undefined when removed), e.g. to refresh outside endpoints. */
  subscribe(fn: (entry: ModelEntry | undefined, name: string) => void): void {
    this.#listeners.push(fn);
  }

  list(): ModelEntry[] {
    return [...this.#byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Creates or replaces a model's declaration. An empty description is stored as none. */
  async upsert(input: ModelInput): Promise<ModelEntry> {
    const now = this.deps.clock.now();
    const existing = this.#byName.get(input.name);
    const row: ModelEntry = {
      name: input.name,
      engine: input.engine,
      source: input.source,
      description: input.description?.trim() || null,
      args: input.args ?? [],
      routingProfile: input.routingProfile ?? null,
      fallbacks: input.fallbacks ?? [],
      slots: input.slots ?? null,
      upstreamModel: input.upstreamModel ?? null,
      externalKeys: input.externalKeys ?? null,
      origin: input.origin !== undefined ? input.origin : existing?.origin ?? null,
      allowPickle: input.allowPickle ?? existing?.allowPickle ?? false,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      // Prices given win; otherwise those set earlier (e.g. by `ctl prices`) are kept.
      pricePrompt: input.pricePrompt ?? existing?.pricePrompt ?? null,
      priceCompletion: input.priceCompletion ?? existing?.priceCompletion ?? null,
      priceCached: input.priceCached ?? existing?.priceCached ?? null,
      priceCacheHit: input.priceCacheHit ?? existing?.priceCacheHit ?? null,
      // Only the model's definition sets it (no command does), so the definition's word holds.
      priceBatchPercent: input.priceBatchPercent ?? null,
      def: input.def ?? null,
      facts: input.facts ?? null,
      declaredIn: input.declaredIn ?? null,
      stopped: input.stopped ?? false,
      // A declaration that says nothing of the role (what `up` serves) keeps the one set by hand.
      judge: input.judge !== undefined ? input.judge : existing?.judge ?? null,
    };
    await this.deps.store.write((tx) =>
      tx.insert(models).values(row).onConflictDoUpdate({ target: models.name, set: row })
    );
    this.#set(row);
    for (const fn of this.#listeners) fn(row, row.name);
    this.deps.changes?.changed("catalog");
    return row;
  }

  /** Changes only a model's prices; false when there is no such model. */
  async setPrices(
    name: string,
    prices: Pick<ModelEntry, "pricePrompt" | "priceCompletion" | "priceCached" | "priceCacheHit">,
  ): Promise<boolean> {
    const existing = this.#byName.get(name);
    if (!existing) return false;
    const row = { ...existing, ...prices, updatedAt: this.deps.clock.now() };
    await this.deps.store.write((tx) =>
      tx.update(models).set({ ...prices, updatedAt: row.updatedAt }).where(eq(models.name, name))
    );
    this.#byName.set(name, row);
    for (const fn of this.#listeners) fn(row, name);
    this.deps.changes?.changed("catalog");
    return true;
  }

  /** Gives a model the `judge` role in a guard-model family, or (null) takes it away. */
  async setJudge(name: string, judge: string | null): Promise<ModelEntry | undefined> {
    const existing = this.#byName.get(name);
    if (!existing) return undefined;
    const row = { ...existing, judge, updatedAt: this.deps.clock.now() };
    await this.deps.store.write((tx) =>
      tx.update(models).set({ judge, updatedAt: row.updatedAt }).where(eq(models.name, name))
    );
    this.#byName.set(name, row);
    for (const fn of this.#listeners) fn(row, name);
    this.deps.changes?.changed("catalog");
    return row;
  }

  async remove(name: string): Promise<boolean> {
    const removed = await this.deps.store.write((tx) =>
      tx.delete(models).where(eq(models.name, name)).returning()
    );
    this.#unset(name);
    for (const fn of this.#listeners) fn(undefined, name);
    if (removed.length) this.deps.changes?.changed("catalog");
    return removed.length > 0;
  }
}
