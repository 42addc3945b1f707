/**
 * From a catalog model and one of its profiles to what one replica needs: the context pool, the
 * memory estimate, the per-card share and the `PlacementRequest` placement takes; plus `specHash`,
 * the fingerprint of everything whose change needs the engine restarted. Pure.
 *
 * What restarts a replica (in the hash): engine, its args, cards, memory, cores, node selector,
 * source, context length, slots, embedding mode, allow_pickle. What does not (outside it): max
 * output (the gateway enforces it), prices, description, aliases, scaling, fallbacks, routing.
 */
import { engineTraits } from "../../core/engines/engine_traits.ts";
import type { ModelDef, ModelProfile } from "./model_schema.ts";
import {
  type Estimate,
  estimateMemory,
  GiB,
  type MemoryNeed,
  type ModelFacts,
  perCardNeed,
} from "./memory_estimate.ts";
import type { PlacementRequest } from "./placement.ts";

/** A catalog entry as the reconciler sees it: the definition plus what was read of its files. */
export interface CatalogModel {
  def: ModelDef;
  facts: ModelFacts;
  /** Names the weights on a node's disk, matching NodeView.weights (e.g. the pinned source). */
  weightsKey?: string;
  /** Stopped by an administrator: nothing runs, the entry stays (seed-changelog §5.3). */
  stopped?: boolean;
  /**
   * Why nothing may start yet (a remote source not pinned): no replica is placed or restarted,
   * and the reason is the model's note. Replicas already running are left as they are.
   */
  held?: string;
  /** A restart may stop a lone replica first when there is no room beside it (`--in-place`). */
  restartInPlace?: boolean;
  /**
   * Arguments the server's own settings add per engine (the sim engine's pace): part of what an
   * engine is started with, so changing them restarts its replicas like any other change.
   */
  engineArgs?: Readonly<Record<string, readonly string[]>>;
}

export const defaultContext = 4096;
export const embeddingContext = 1024;
export const embeddingSlots = 32;
export const chatSlots = 4;

export function isEmbedding(def: ModelDef): boolean {
  return def.capabilities.includes("embeddings");
}

/** Tokens one request may use and requests served at once. An embedding model: 32 × 1,024. */
export function contextOf(model: CatalogModel): { context: number; slots: number } {
  const trained = model.def.trainedContext ?? model.facts.trainedContext;
  const emb = isEmbedding(model.def);
  const wanted = model.def.contextLength ?? (emb ? embeddingContext : defaultContext);
  const context = trained ? Math.min(wanted, trained) : wanted;
  return { context, slots: model.def.slots ?? (emb ? embeddingSlots : chatSlots) };
}

export interface ReplicaNeed {
  estimate: Estimate;
  perCard: MemoryNeed;
  request: PlacementRequest;
}

export function replicaNeed(model: CatalogModel, profile: ModelProfile): ReplicaNeed {
  const { context, slots } = contextOf(model);
  const device = profile.gpus > 0 ? "gpu" : "cpu";
  const estimate = estimateMemory({
    facts: model.facts,
    engine: profile.engine,
    device,
    poolTokens: context * slots,
  });
  const perCard = perCardNeed(estimate, profile.gpus, profile.engine);
  const ramBytes = profile.memoryGb !== undefined
    ? Math.round(profile.memoryGb * GiB)
    : device === "cpu"
    ? estimate.total
    : 2 * GiB; // a GPU engine's host side: loader buffers, tokenizer, HTTP
  const request: PlacementRequest = {
    model: model.def.name,
    engine: profile.engine,
    gpus: profile.gpus,
    perCardBytes: device === "gpu" ? perCard.total : 0,
    ramBytes,
    cores: profile.cores ?? (device === "gpu" ? 1 : 2),
    nodeSelector: profile.nodeSelector,
    tensorParallel: engineTraits[profile.engine].tensorParallel,
  };
  if (profile.minComputeCapability !== undefined) {
    request.minComputeCapability = profile.minComputeCapability;
  }
  if (profile.minCardMemoryGb !== undefined) {
    request.minCardMemoryBytes = profile.minCardMemoryGb * GiB;
  }
  if (model.facts.kvHeads !== undefined) request.kvHeads = model.facts.kvHeads;
  if (model.weightsKey !== undefined) request.weightsKey = model.weightsKey;
  return { estimate, perCard, request };
}

/** FNV-1a over the JSON of what a running engine was started with. Stable, synchronous. */
export function specHash(model: CatalogModel, profile: ModelProfile): string {
  const { context, slots } = contextOf(model);
  const text = JSON.stringify([
    profile.engine,
    profile.args,
    profile.gpus,
    profile.memoryGb ?? null,
    profile.cores ?? null,
    Object.entries(profile.nodeSelector).sort(),
    model.def.source ?? null,
    context,
    slots,
    isEmbedding(model.def),
    model.def.allowPickle,
    // Only when there are some, so models of other engines keep the hashes they had.
    ...(model.engineArgs?.[profile.engine]?.length ? [model.engineArgs[profile.engine]] : []),
  ]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** What a GGUF header says, as the estimate takes it (the lead stores it with the catalog entry). */
export function factsFromGguf(
  g: Omit<ModelFacts, "weightsBytes"> & { tensorBytes?: number },
): ModelFacts {
  const f: ModelFacts = {};
  if (g.tensorBytes !== undefined) f.weightsBytes = g.tensorBytes;
  for (const k of ["layers", "kvHeads", "headDim", "trainedContext", "experts"] as const) {
    if (g[k] !== undefined) f[k] = g[k];
  }
  if (g.architecture !== undefined) f.architecture = g.architecture;
  if (g.pooling !== undefined) f.pooling = g.pooling;
  return f;
}
