/**
 * The Responses API's file_search tool over llmgw's knowledge bases (`vector_store_ids` are
 * collection ids or names the key sees). The gateway searches before the model runs, for the
 * last user message, rather than letting the model call the tool: the engines llmgw runs need not
 * be good at tool calls, and one search answers what a first call would have asked. The answer
 * carries a `file_search_call` item (its results when `include` asks) before the message, and
 * the message's `[n]` citations as `file_citation` annotations.
 */
import type { ApiKeyInfo } from "../keys/keys.ts";
import { groundingPassages, lastUserText, withGrounding } from "../kb/grounding.ts";
import type { KnowledgeBases } from "../kb/knowledge_bases.ts";
import type { SearchResult } from "../kb/search.ts";
import type { FileSearchTool } from "./request.ts";

type Json = Record<string, unknown>;

export interface FileSearchOutcome {
  /** The chat body with the passages in its prompt. */
  body: Json;
  /** The file_search_call output item. */
  item: Json;
  /** The passages in prompt order: `[n]` is results[n-1]. */
  results: SearchResult[];
}

export async function runFileSearch(
  kb: Pick<KnowledgeBases, "resolve" | "search">,
  key: ApiKeyInfo,
  tool: FileSearchTool,
  body: Json,
  id: string,
): Promise<FileSearchOutcome> {
  const collections = [];
  for (const ref of tool.collections) collections.push(await kb.resolve(key, ref));
  const query = lastUserText(body.messages);
  const found = await kb.search(key, collections, query, { limit: tool.maxResults });
  const results = found.slice(0, Math.min(tool.maxResults, groundingPassages));
  const messages = Array.isArray(body.messages) ? body.messages as Json[] : [];
  return {
    body: { ...body, messages: withGrounding(messages, results) },
    item: {
      id,
      type: "file_search_call",
      status: "completed",
      queries: [query],
      results: tool.includeResults
        ? found.map((r) => ({
          file_id: r.documentId,
          filename: r.document,
          score: r.score,
          text: r.text,
          attributes: { collection_id: r.collectionId, passage_id: r.passageId },
        }))
        : null,
    },
    results,
  };
}

/** OpenAI's file_citation annotations for each `[n]` in the text that names a passage given. */
export function fileCitations(text: string, results: SearchResult[]): Json[] {
  const out: Json[] = [];
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    const r = results[Number(m[1]) - 1];
    if (!r) continue;
    out.push({
      type: "file_citation",
      index: m.index,
      file_id: r.documentId,
      filename: r.document,
    });
  }
  return out;
}
