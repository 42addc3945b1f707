/**
 * The knowledge bases' SQL that Drizzle cannot say, each statement in both dialects side by side.
 *
 * Vectors: the passage's embedding is JSON text; libSQL reads it with vector32() and ranks by
 * vector_distance_cos, PostgreSQL casts it to pgvector's `vector` and ranks by `<=>` (cosine
 * distance). Both scan the collection's passages: libSQL's own index (libsql_vector_idx, which
 * the bundled libSQL has) and pgvector's HNSW need a column of one fixed dimension, and a column
 * here holds the collections of every embedding model.
 *
 * Keywords: SQLite's FTS5 table kb_fts (BM25, porter stemming), PostgreSQL's to_tsvector with an
 * expression GIN index (ts_rank). The query's words are OR-ed: a passage needs only some of them.
 */
import { type SQL, sql } from "drizzle-orm";
import { AppError } from "../../core/errors.ts";
import type { DialectSql, Store } from "../../db/store.ts";

export interface Hit {
  id: string;
  /** Lower is nearer for vectors; higher is better for keywords (both only order within a list). */
  score: number;
}

const list = (ids: string[]): SQL => sql.join(ids.map((id) => sql`${id}`), sql`, `);

export function vectorHits(
  collectionIds: string[],
  vector: number[],
  limit: number,
): DialectSql {
  const v = JSON.stringify(vector);
  return {
    sqlite: sql`SELECT id, vector_distance_cos(vector32(embedding), vector32(${v})) AS score
      FROM kb_passages WHERE collection_id IN (${list(collectionIds)}) AND embedding IS NOT NULL
      ORDER BY score LIMIT ${limit}`,
    postgres: sql`SELECT id, (embedding::vector <=> ${v}::vector) AS score
      FROM kb_passages WHERE collection_id IN (${list(collectionIds)}) AND embedding IS NOT NULL
      ORDER BY score LIMIT ${limit}`,
  };
}

/** The query's words, lower-cased letters and digits: safe in both dialects' query syntaxes. */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => w.length > 1))].slice(0, 64);
}

export function keywordHits(
  collectionIds: string[],
  words: string[],
  limit: number,
): DialectSql {
  const fts = words.map((w) => `"${w}"`).join(" OR ");
  const ts = words.join(" | ");
  const doc = sql`to_tsvector('english', coalesce(heading, '') || ' ' || text)`;
  return {
    // bm25() is lower for better matches; negated so both lists sort the same way.
    sqlite: sql`SELECT p.id AS id, -bm25(kb_fts) AS score FROM kb_fts
      JOIN kb_passages p ON p.row_key = kb_fts.rowid
      WHERE kb_fts MATCH ${fts} AND kb_fts.collection_id IN (${list(collectionIds)})
      ORDER BY score DESC LIMIT ${limit}`,
    postgres: sql`SELECT id, ts_rank(${doc}, q) AS score
      FROM kb_passages, to_tsquery('english', ${ts}) AS q
      WHERE collection_id IN (${list(collectionIds)}) AND ${doc} @@ q
      ORDER BY score DESC LIMIT ${limit}`,
  };
}

/**
 * PostgreSQL needs pgvector for the vector half; created here on first use (not in a migration,
 * so a server without it still runs everything else), refused by name where it cannot be.
 */
export async function ensureVectorSupport(store: Store): Promise<void> {
  if (store.dialect !== "postgres") return;
  const present = async () =>
    (await store.all<{ n: number }>({
      sqlite: sql`SELECT 1 AS n`,
      postgres: sql`SELECT 1 AS n FROM pg_extension WHERE extname = 'vector'`,
    })).length > 0;
  if (await present()) return;
  try {
    await store.write((tx) =>
      store.run({
        sqlite: sql`SELECT 1`,
        postgres: sql`CREATE EXTENSION IF NOT EXISTS vector`,
      }, tx)
    );
  } catch {
    // Refused below by name: a missing package and a missing privilege read the same to the caller.
  }
  if (!await present()) {
    throw new AppError("kb_unavailable", {
      detail: "the PostgreSQL store lacks the pgvector extension ('vector'): install it on the " +
        "server (the postgresql-NN-pgvector package) and let llmgw's user create it, or run " +
        "CREATE EXTENSION vector as its owner",
    });
  }
}
