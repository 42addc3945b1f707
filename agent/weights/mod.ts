/**
 * The node's weights, as the agent channel's `fetch_weights` command uses them:
 *
 *   const weights = nodeWeights({ fetch, clock, logger, weightsDir, hub?, mirrorToken?, mirrorFetch? });
 *   const { path } = await weights.ensureWeights(pinnedSourceSchema.parse(msg.source), {
 *     mirrors: clusterMirrors(controlUrls), allowPickle: msg.allowPickle, onProgress: (p) => send(p), signal,
 *   });
 *   await weights.purge(source, sourcesOfOtherModels);
 *   await weights.close(); // on agent stop: fetches stop, .part files stay for the next start
 *
 * Errors are AppError with codes weights_* (core/errors.ts); their messages are for people.
 */
import {
  type EnsureOptions,
  type EnsureResult,
  WeightsFetcher,
  type WeightsFetcherDeps,
} from "../../core/weights/fetcher.ts";
import type { PinnedSource } from "../../core/weights/pinned_source.ts";
import {
  pruneWeights,
  type RemoveResult,
  removeWeights,
} from "../../core/weights/remove_weights.ts";

export {
  type EnsureOptions,
  type EnsureResult,
  WeightsFetcher,
  type WeightsFetcherDeps,
} from "../../core/weights/fetcher.ts";
export {
  checkSource,
  describeSource,
  type PinnedFile,
  type PinnedSource,
  pinnedSourceSchema,
  versionDir,
} from "../../core/weights/pinned_source.ts";
export { type FetchProgress, percentOf } from "../../core/weights/progress.ts";
export type { RemoveResult } from "../../core/weights/remove_weights.ts";

export interface NodeWeights {
  /** Mirrors first, then the origin; one fetch per version however many callers. */
  ensureWeights(source: PinnedSource, opts?: EnsureOptions): Promise<EnsureResult>;
  /** Removes `source`'s files, keeping those any of `keep` names. */
  purge(source: PinnedSource, keep: PinnedSource[]): Promise<RemoveResult>;
  /** Removes every fetched version none of `keep` names. */
  prune(keep: PinnedSource[]): Promise<string[]>;
  close(): Promise<void>;
}

export function nodeWeights(deps: WeightsFetcherDeps): NodeWeights {
  const fetcher = new WeightsFetcher(deps);
  return {
    ensureWeights: (source, opts) => fetcher.ensure(source, opts),
    purge: (source, keep) => removeWeights(deps.weightsDir, source, keep),
    prune: (keep) => pruneWeights(deps.weightsDir, keep),
    close: () => fetcher.close(),
  };
}
