/**
 * Retrieval-augmented prompts: the passages found for a request's last user message go into its
 * prompt as one system message, numbered [1], [2] … with their sources, so the answer can cite
 * them; the same numbers come back to the client as citations (document, heading, passage id).
 * Shared by chat with `x-llmgw-kb` and the Responses API's file_search tool.
 */
import { isRecord } from "../router/json_fields.ts";
import type { SearchResult } from "./search.ts";

type Json = Record<string, unknown>;

/** Passages put in one prompt; more crowd the context and the model's attention. */
export const groundingPassages = 5;

export function groundingMessage(results: SearchResult[]): Json {
  const sources = results.map((r, i) =>
    `[${i + 1}] ${r.document}${r.heading ? ` — ${r.heading}` : ""}\n${r.text}`
  ).join("\n\n");
  return {
    role: "system",
    content:
      "Answer from these passages of the knowledge base where they help, and cite each passage " +
      "you use by its number in brackets, like [1]. If they do not hold the answer, say so.\n\n" +
      sources,
  };
}

export interface Citation {
  index: number;
  passage_id: string;
  collection_id: string;
  document_id: string;
  document: string;
  heading: string | null;
  score: number;
}

export function citationsOf(results: SearchResult[]): Citation[] {
  return results.map((r, i) => ({
    index: i + 1,
    passage_id: r.passageId,
    collection_id: r.collectionId,
    document_id: r.documentId,
    document: r.document,
    heading: r.heading,
    score: r.score,
  }));
}

/** The text of the last user message of chat messages: what the passages are searched for. */
export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (!isRecord(m) || m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : ""))
        .join("\n");
    }
  }
  return "";
}

/** The messages with the grounding message just before the last user message. */
export function withGrounding(messages: Json[], results: SearchResult[]): Json[] {
  if (results.length === 0) return messages;
  const at = messages.findLastIndex((m) => m.role === "user");
  const out = [...messages];
  out.splice(at < 0 ? out.length : at, 0, groundingMessage(results));
  return out;
}
