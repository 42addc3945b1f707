/**
 * Reranking on text-embeddings-inference, which has its own `/rerank` at its root: the client's
 * Cohere/Jina-style body (`query`, `documents`, `top_n`, `return_documents`) becomes TEI's
 * (`query`, `texts`, `return_text`), and TEI's answer (a list of `{index, score}`, best first)
 * becomes the `results` list llama-server and vLLM answer with. TEI reports no token counts, so
 * the answer has no usage.
 */

/** TEI's request for the client's; undefined when `documents` is not a list of texts. */
export function toTeiRerank(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const docs = body.documents;
  if (!Array.isArray(docs)) return undefined;
  const texts: string[] = [];
  for (const d of docs) {
    const text = typeof d === "string"
      ? d
      : d && typeof d === "object" && typeof (d as { text?: unknown }).text === "string"
      ? (d as { text: string }).text
      : undefined;
    if (text === undefined) return undefined;
    texts.push(text);
  }
  return {
    model: body.model,
    query: body.query,
    texts,
    return_text: body.return_documents === true,
    // A document longer than the model takes is cut, as llama-server does, rather than refused.
    truncate: true,
  };
}

/** The client's answer for TEI's, best first, `top_n` of them; undefined when it is not TEI's. */
export function fromTeiRerank(
  answer: unknown,
  body: Record<string, unknown>,
): Record<string, unknown> | undefined {
  if (!Array.isArray(answer)) return undefined;
  const results: { index: number; relevance_score: number; document?: { text: string } }[] = [];
  for (const r of answer) {
    const { index, score, text } = (r ?? {}) as {
      index?: unknown;
      score?: unknown;
      text?: unknown;
    };
    if (typeof index !== "number" || typeof score !== "number") return undefined;
    results.push({
      index,
      relevance_score: score,
      ...(typeof text === "string" ? { document: { text } } : {}),
    });
  }
  results.sort((a, b) => b.relevance_score - a.relevance_score);
  const topN = typeof body.top_n === "number" && body.top_n >= 0 ? body.top_n : results.length;
  return { object: "list", model: body.model, results: results.slice(0, topN) };
}
