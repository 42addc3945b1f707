/**
 * POST /v1/rerank (and llama-server's aliases): a deterministic relevance score per document, in
 * Jina's shape as llama-server answers. Only an engine started with --reranking offers it.
 */
import type { Context } from "hono";
import { z } from "zod";
import type { Engine } from "./engine.ts";
import { countTokens, hashText, prng } from "./generate.ts";
import { errorBody } from "./openai_shapes.ts";
import { parseBody } from "./requests.ts";

export const rerankRequest = z.object({
  model: z.string().optional(),
  query: z.string(),
  documents: z.array(z.string()).min(1),
  top_n: z.number().int().min(1).nullish(),
});

export function rerankHandler(engine: Engine) {
  return async (c: Context): Promise<Response> => {
    if (!engine.reranking) {
      const message =
        "This server does not support reranking. Start it with `--reranking` and without `--embedding`";
      return c.json(errorBody(message, { type: "not_supported_error" }), 501);
    }
    const parsed = await parseBody(c, rerankRequest);
    if (!parsed.ok) return parsed.response;
    const req = parsed.data;
    const scored = req.documents.map((doc, index) => ({
      index,
      relevance_score: relevance(req.query, doc),
    }));
    scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
    const tokens = req.documents.reduce(
      (n, d) => n + countTokens(req.query) + countTokens(d) + 3,
      0,
    );
    engine.counters.prompt(tokens, (tokens * 1000) / engine.promptTokensPerSecond);
    return c.json({
      model: req.model ?? engine.model,
      object: "list",
      usage: { prompt_tokens: tokens, total_tokens: tokens },
      results: scored.slice(0, req.top_n ?? scored.length),
    });
  };
}

/** Shared words count most; a fixed jitter from the pair breaks ties, so the order is stable. */
export function relevance(query: string, doc: string): number {
  const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const q = words(query);
  const d = words(doc);
  let shared = 0;
  for (const w of q) if (d.has(w)) shared++;
  const overlap = q.size ? shared / q.size : 0;
  const jitter = prng(hashText(`${query}\u0000${doc}`))();
  return Math.round((0.9 * overlap + 0.1 * jitter) * 1e6) / 1e6;
}
