/**
 * The knowledge bases as the routes see them: the store of collections, the importer, search,
 * and who sees what. A project's collection is visible to that project's keys; an
 * organisation's (no project) to the keys of all its projects and its people. Anything else is
 * not found, so a collection's id cannot be probed from another tenant.
 */
import { AppError } from "../../core/errors.ts";
import type { Store } from "../../db/store.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import { placeOfKey } from "../tenancy/place_of_key.ts";
import type { Tenancy } from "../tenancy/tenancy.ts";
import type { Embedder } from "./embedder.ts";
import { KbImporter } from "./importer.ts";
import { type Collection, KbStore } from "./kb_store.ts";
import { searchCollections, type SearchMode, type SearchResult } from "./search.ts";
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";

export class KnowledgeBases {
  readonly kb: KbStore;
  readonly importer: KbImporter;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      logger: Logger;
      embedder: Embedder;
      tenancy: Tenancy;
    },
  ) {
    this.kb = new KbStore(deps.store, deps.clock);
    this.importer = new KbImporter({ kb: this.kb, embedder: deps.embedder, logger: deps.logger });
  }

  visibleTo(key: ApiKeyInfo, c: Collection): boolean {
    const place = placeOfKey({ people: { tenancy: this.deps.tenancy } }, key);
    if (c.projectId !== null) return place.projectId === c.projectId;
    return place.orgId === c.orgId;
  }

  async visible(key: ApiKeyInfo): Promise<Collection[]> {
    return (await this.kb.collections()).filter((c) => this.visibleTo(key, c));
  }

  /** A collection by id or name among those the key sees (its project's name first). */
  async resolve(key: ApiKeyInfo, ref: string): Promise<Collection> {
    const seen = await this.visible(key);
    const found = seen.find((c) => c.id === ref) ??
      seen.find((c) => c.name === ref && c.projectId !== null) ??
      seen.find((c) => c.name === ref);
    if (!found) throw new AppError("not_found", { path: `knowledge base '${ref}'` });
    return found;
  }

  async search(
    key: ApiKeyInfo,
    collections: Collection[],
    query: string,
    opts: { limit: number; mode?: SearchMode },
  ): Promise<SearchResult[]> {
    return await searchCollections(
      { store: this.deps.store, kb: this.kb, embedder: this.deps.embedder },
      collections,
      query,
      { limit: opts.limit, mode: opts.mode ?? "hybrid", caller: key },
    );
  }
}

/**
 * Who an import started on the admin API embeds as: the person who added it (no key of theirs
 * is in the request), charged to the collection's project, so its limits and budget apply.
 */
export function importCaller(personId: string | null, c: Collection): ApiKeyInfo {
  return {
    id: "",
    name: "knowledge base import",
    prefix: "",
    userId: personId,
    projectId: c.projectId,
    createdAt: 0,
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
  };
}
