/**
 * Retrieval-augmented chat: a /v1/chat/completions request naming collections in `x-llmgw-kb`
 * (comma-separated ids or names the key sees), or sent to a model alias that carries some
 * (model_schema's `alias_knowledge_bases`), is searched for its last user message, and the top
 * passages go into its prompt. The answer says which passages it was given: `x-llmgw-kb-passages`
 * (their ids, in citation order) on every answer, and `citations` in a JSON one.
 */
import type { ApiKeyInfo } from "../keys/keys.ts";
import {
  type Citation,
  citationsOf,
  groundingPassages,
  lastUserText,
  withGrounding,
} from "./grounding.ts";
import type { KnowledgeBases } from "./knowledge_bases.ts";

type Json = Record<string, unknown>;

export const kbHeader = "x-llmgw-kb";

export interface GroundedChat {
  body: Json;
  citations: Citation[];
}

export async function groundChat(
  kb: Pick<KnowledgeBases, "resolve" | "search">,
  key: ApiKeyInfo,
  refs: string[],
  body: Json,
  opts: { skipMissing?: boolean } = {},
): Promise<GroundedChat> {
  const names = [...new Set(refs.map((s) => s.trim()).filter((s) => s !== ""))];
  const collections = [];
  for (const name of names) {
    const found = await kb.resolve(key, name).catch((e) => {
      if (opts.skipMissing) return undefined;
      throw e;
    });
    if (found) collections.push(found);
  }
  const query = lastUserText(body.messages);
  const results = await kb.search(key, collections, query, { limit: groundingPassages });
  const messages = Array.isArray(body.messages) ? body.messages as Json[] : [];
  return {
    body: { ...body, messages: withGrounding(messages, results) },
    citations: citationsOf(results),
  };
}

/** The answer with the citations: a header always, and a field in a JSON body. */
export async function withCitations(res: Response, citations: Citation[]): Promise<Response> {
  const headers = new Headers(res.headers);
  headers.set("x-llmgw-kb-passages", citations.map((c) => c.passage_id).join(","));
  const json = res.ok && (res.headers.get("content-type") ?? "").includes("application/json");
  if (!json) return new Response(res.body, { status: res.status, headers });
  const body = await res.json();
  headers.delete("content-length");
  return new Response(JSON.stringify({ ...body, citations }), { status: res.status, headers });
}
