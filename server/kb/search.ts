/**
 * Hybrid search over collections: the vector half (the query embedded by each collection's
 * model, cosine distance) and the keyword half (BM25 / ts_rank) each give a ranked list, fused by
 * reciprocal rank fusion: score = Σ 1/(60 + rank). RRF rather than a weighted sum because the
 * two halves' scores are on scales that cannot be compared (a cosine distance, a BM25 sum that
 * grows with the query's length) and would need tuning per corpus; ranks need none, and a
 * passage found by both halves rises above one found by either.
 */
import type { Store } from "../../db/store.ts";
import type { ApiKeyInfo } from "../keys/keys.ts";
import type { Embedder } from "./embedder.ts";
import { ensureVectorSupport, type Hit, keywordHits, queryWords, vectorHits } from "./kb_sql.ts";
import type { Collection, KbStore } from "./kb_store.ts";

export const searchModes = ["hybrid", "vector", "keyword"] as const;
export type SearchMode = typeof searchModes[number];

/** RRF's constant: damps the weight of the very first ranks (the value of the paper, Cormack 2009). */
const rrfK = 60;
/** Candidates each half gives the fusion. */
const candidates = 50;

export interface SearchResult {
  passageId: string;
  collectionId: string;
  documentId: string;
  document: string;
  heading: string | null;
  text: string;
  score: number;
  /** 1-based ranks in each half; null where that half did not find it. */
  vectorRank: number | null;
  keywordRank: number | null;
}

export interface SearchDeps {
  store: Store;
  kb: Pick<KbStore, "passagesWithSource">;
  embedder: Embedder;
}

export async function searchCollections(
  deps: SearchDeps,
  collections: Collection[],
  query: string,
  opts: { limit: number; mode: SearchMode; caller: ApiKeyInfo },
): Promise<SearchResult[]> {
  if (collections.length === 0 || !query.trim()) return [];
  const vector = opts.mode === "keyword" ? [] : await vectorRanks(deps, collections, query, opts);
  const keyword = opts.mode === "vector" ? [] : await keywordRanks(deps, collections, query);
  const fused = fuse(vector, keyword).slice(0, opts.limit);
  const rows = new Map(
    (await deps.kb.passagesWithSource(fused.map((f) => f.id))).map((r) => [r.id, r]),
  );
  return fused.flatMap((f) => {
    const p = rows.get(f.id);
    if (!p) return [];
    return [{
      passageId: p.id,
      collectionId: p.collectionId,
      documentId: p.documentId,
      document: p.document,
      heading: p.heading,
      text: p.text,
      score: f.score,
      vectorRank: f.vectorRank,
      keywordRank: f.keywordRank,
    }];
  });
}

/** One list over all the collections: each model's query vector against its own collections. */
async function vectorRanks(
  deps: SearchDeps,
  collections: Collection[],
  query: string,
  opts: { caller: ApiKeyInfo },
): Promise<Hit[]> {
  await ensureVectorSupport(deps.store);
  const byModel = Map.groupBy(collections, (c) => c.embeddingModel);
  const hits: Hit[] = [];
  for (const [model, cs] of byModel) {
    const [v] = await deps.embedder.embed(model, [query], opts.caller);
    hits.push(
      ...await deps.store.all<Hit>(vectorHits(cs.map((c) => c.id), v!, candidates)),
    );
  }
  return hits.sort((a, b) => a.score - b.score).slice(0, candidates);
}

async function keywordRanks(
  deps: SearchDeps,
  collections: Collection[],
  query: string,
): Promise<Hit[]> {
  const words = queryWords(query);
  if (words.length === 0) return [];
  return await deps.store.all<Hit>(keywordHits(collections.map((c) => c.id), words, candidates));
}

interface Fused {
  id: string;
  score: number;
  vectorRank: number | null;
  keywordRank: number | null;
}

export function fuse(vector: Hit[], keyword: Hit[]): Fused[] {
  const out = new Map<string, Fused>();
  const add = (hits: Hit[], half: "vectorRank" | "keywordRank") =>
    hits.forEach((h, i) => {
      const f = out.get(h.id) ?? { id: h.id, score: 0, vectorRank: null, keywordRank: null };
      f.score += 1 / (rrfK + i + 1);
      f[half] = i + 1;
      out.set(h.id, f);
    });
  add(vector, "vectorRank");
  add(keyword, "keywordRank");
  return [...out.values()].sort((a, b) => b.score - a.score);
}
