/**
 * What `/v1/models` tells clients of a catalog model: the context one request may use
 * (`context_length`), the longest answer the gateway allows (`max_output_tokens`), and its aliases.
 * Nothing for a model without a catalog entry (`up`'s own engine).
 */
import type { ModelEntry } from "../router/catalog.ts";
import { catalogModelOf } from "./catalog_row.ts";
import { contextOf } from "./replica_need.ts";

export function modelLimits(entry: ModelEntry): Record<string, unknown> {
  const m = catalogModelOf(entry);
  if (!m || m.def.external) return {};
  return {
    context_length: contextOf(m).context,
    ...(m.def.maxOutput !== undefined ? { max_output_tokens: m.def.maxOutput } : {}),
    ...(m.def.aliases.length ? { aliases: m.def.aliases } : {}),
  };
}

/**
 * The most tokens one answer of this model can have: its `max_output`, else its context. What a
 * request that names no `max_tokens` is held to at admission; undefined when the catalog does not
 * say (`up`'s own engine, an outside provider).
 */
export function outputCeiling(entry: ModelEntry): number | undefined {
  const m = catalogModelOf(entry);
  if (!m || m.def.external) return undefined;
  return m.def.maxOutput ?? contextOf(m).context;
}
