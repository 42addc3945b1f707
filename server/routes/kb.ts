/**
 * POST /v1/kb/{collection}/search: a query to the collection's passages, each with its score
 * and source (document, heading), for a client key that sees the collection. The answer's
 * shape is OpenAI's vector store search page, with llmgw's fields beside it.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app_env.ts";
import type { BodyLimit } from "../router/read_body.ts";
import type { KeyService } from "../keys/keys.ts";
import { AppError } from "../../core/errors.ts";
import type { KnowledgeBases } from "../kb/knowledge_bases.ts";
import { searchModes, type SearchResult } from "../kb/search.ts";
import { readJsonBody } from "../router/read_body.ts";
import { requireApiKey } from "./require_api_key.ts";

export interface KbSearchDeps {
  keys: Pick<KeyService, "check">;
  limits: BodyLimit;
  kb: Pick<KnowledgeBases, "resolve" | "search">;
}

const searchBody = z.object({
  query: z.string().min(1).max(10_000),
  max_num_results: z.number().int().min(1).max(50).optional(),
  /** hybrid (the default), or one half alone: to compare them, as the README's figures do. */
  mode: z.enum(searchModes).optional(),
});

/** Mounted at /v1. */
export function kbSearchRoutes(deps: KbSearchDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/kb/*", requireApiKey(deps));
  app.post("/kb/:collection/search", async (c) => {
    const parsed = searchBody.safeParse(await readJsonBody(c.req.raw, deps.limits.maxBodyBytes));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AppError(
        "invalid_request",
        { detail: `'${issue.path.join(".")}': ${issue.message}` },
        issue.path.join(".") || null,
      );
    }
    const key = c.get("apiKey");
    const collection = await deps.kb.resolve(key, c.req.param("collection"));
    const results = await deps.kb.search(key, [collection], parsed.data.query, {
      limit: parsed.data.max_num_results ?? 10,
      ...(parsed.data.mode ? { mode: parsed.data.mode } : {}),
    });
    return c.json({
      object: "vector_store.search_results.page",
      search_query: parsed.data.query,
      data: results.map(searchResultObject),
      has_more: false,
      next_page: null,
    });
  });
  return app;
}

export function searchResultObject(r: SearchResult) {
  return {
    file_id: r.documentId,
    filename: r.document,
    score: r.score,
    attributes: {},
    content: [{ type: "text", text: r.text }],
    passage_id: r.passageId,
    collection_id: r.collectionId,
    heading: r.heading,
    ranks: { vector: r.vectorRank, keyword: r.keywordRank },
  };
}
