/**
 * Between the catalog's store row (the router's columns plus the full `def`) and the model as the
 * reconciler sees it. `rowFromDef` fills the router's columns from a ModelDef so the request path
 * never reads `def`; `catalogModelOf` gives the reconciler's `CatalogModel` for a row that has a
 * def (rows without one — `up`'s own engine, a replica started by hand — are not placed).
 */
import type { ModelEntry, ModelInput } from "../router/catalog.ts";
import type { ModelFacts } from "./memory_estimate.ts";
import type { ModelDef } from "./model_schema.ts";
import type { ExternalKeyFile } from "../../db/schema.ts";
import { type CatalogModel, contextOf } from "./replica_need.ts";

/** Where a model was declared: server.yaml, the admin API, or `llmgw up` (what it serves now). */
export type ModelOrigin = "config" | "api" | "up";

export function rowFromDef(
  def: ModelDef,
  facts: ModelFacts,
  origin: ModelOrigin,
  stopped = false,
): ModelInput {
  const first = def.profiles[0];
  const model: CatalogModel = { def, facts };
  const input: ModelInput = {
    name: def.name,
    engine: def.external ? "external" : first?.engine ?? "sim",
    source: def.external ? def.external.url : def.source ?? "",
    description: def.description ?? null,
    args: first?.args ?? [],
    routingProfile: def.routing ?? null,
    fallbacks: def.fallbacks,
    // What the reconciler starts engines with, so the router holds each replica to it.
    slots: def.external ? null : contextOf(model).slots,
    // An entry that names no price (all zero) is charged the default price, not nothing.
    ...(unpriced(def) ? {} : {
      pricePrompt: def.prices.promptPer1k,
      priceCached: def.prices.cachedPer1k,
      priceCacheHit: def.prices.cacheHitPer1k,
      priceCompletion: def.prices.completionPer1k,
    }),
    // Applies to the default price too, so it is set even when the entry names no price.
    priceBatchPercent: def.prices.batchPercent ?? null,
    upstreamModel: def.external ? def.external.model : null,
    externalKeys: externalKeysOf(def),
    def: def as unknown as Record<string, unknown>,
    facts: facts as Record<string, unknown>,
    declaredIn: origin,
    stopped,
    judge: def.judge?.format ?? null,
  };
  return input;
}

export function defOf(entry: ModelEntry): ModelDef | undefined {
  return entry.def ? entry.def as unknown as ModelDef : undefined;
}

export function catalogModelOf(entry: ModelEntry): CatalogModel | undefined {
  const def = defOf(entry);
  if (!def) return undefined;
  const m: CatalogModel = { def, facts: (entry.facts ?? {}) as ModelFacts };
  if (entry.stopped) m.stopped = true;
  return m;
}

/**
 * How many ready replicas the model should have at any time: its `scaling.min`, and 0 for one
 * that is stopped, served by an outside provider or started on demand (its having none is the
 * plan, not a fault). A row without a def (what `up` serves, a replica started by hand) should
 * have one. What the "no replica" alert and notification judge a model by.
 */
export function replicasWanted(entry: ModelEntry): number {
  if (entry.stopped || entry.engine === "external") return 0;
  const def = defOf(entry);
  if (!def) return 1;
  return def.external || def.onDemand ? 0 : def.scaling.min;
}

function unpriced(def: ModelDef): boolean {
  const p = def.prices;
  return p.promptPer1k === 0 && p.completionPer1k === 0 && p.cachedPer1k === 0 &&
    p.cacheHitPer1k === 0;
}

/** The key files of an outside provider, one endpoint each (`external:MODEL#n`, n from 1). */
function externalKeysOf(def: ModelDef): ExternalKeyFile[] | null {
  const e = def.external;
  if (e?.apiKeyFiles) return e.apiKeyFiles.map((k) => ({ file: k.file, weight: k.weight }));
  return e?.apiKeyFile ? [{ file: e.apiKeyFile }] : null;
}
