/**
 * The model catalog: what models exist, kept in the store and mirrored in memory so the request
 * path never reads the store to find a model.
 */
import { eq } from "drizzle-orm";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { models } from "../../db/schema.ts";

export type ModelEntry = typeof models.$inferSelect;
export type ModelInput = Pick<ModelEntry, "name" | "engine" | "source"> & {
  description?: string | null;
  args?: string[];
  /** The pinned weights (server/weights/pin_source.ts); kept when an update leaves it out. */
  origin?: ModelEntry["origin"];
  allowPickle?: boolean;
};

export class ModelCatalog {
  #byName = new Map<string, ModelEntry>();

  private constructor(private readonly deps: { store: Store; clock: Clock }) {}

  static async load(deps: { store: Store; clock: Clock }): Promise<ModelCatalog> {
    const catalog = new ModelCatalog(deps);
    for (const row of await deps.store.db.select().from(models)) catalog.#byName.set(row.name, row);
    return catalog;
  }

  get(name: string): ModelEntry | undefined {
    return this.#byName.get(name);
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
      origin: input.origin ?? existing?.origin ?? null,
      allowPickle: input.allowPickle ?? existing?.allowPickle ?? false,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await this.deps.store.write((tx) =>
      tx.insert(models).values(row).onConflictDoUpdate({ target: models.name, set: row })
    );
    this.#byName.set(row.name, row);
    return row;
  }

  async remove(name: string): Promise<boolean> {
    const removed = await this.deps.store.write((tx) =>
      tx.delete(models).where(eq(models.name, name)).returning()
    );
    this.#byName.delete(name);
    return removed.length > 0;
  }
}
