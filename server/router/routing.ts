/**
 * The router's own state and settings, built once at start: the admission queues, the prefix
 * index and what the request path needs to know. Passed to dispatch through the app's deps.
 */
import type { Logger } from "../../core/log.ts";
import { Admission } from "./slots.ts";
import { PrefixIndex } from "./prefix_index.ts";
import { defaultPrefixOptions, type PrefixOptions } from "./request_keys.ts";
import { engineUpstream, type Upstream } from "./upstream/upstream.ts";

export interface RoutingSettings {
  queueTimeoutMs: number;
  streamIdleTimeoutMs: number;
  /** Endpoints tried for one request, fallbacks included, before giving up. */
  maxAttempts: number;
  batchSharePercent: number;
  prefix: PrefixOptions;
  prefixIndexSize: number;
}

export const defaultRoutingSettings: RoutingSettings = {
  queueTimeoutMs: 30_000,
  streamIdleTimeoutMs: 60_000,
  maxAttempts: 3,
  batchSharePercent: 20,
  prefix: defaultPrefixOptions,
  prefixIndexSize: 100_000,
};

export interface Routing {
  readonly settings: RoutingSettings;
  readonly admission: Admission;
  readonly prefixIndex: PrefixIndex;
  /** Requests to engines and outside providers; closed with the control plane. */
  readonly upstream: Upstream;
  /**
   * An outside provider refused a key (401). Names the endpoint (`external:MODEL#n`), never the
   * key. Logs a warning; a notification can hook in here.
   */
  keyRefused: (endpoint: string) => void;
}

export function createRouting(
  settings: Partial<RoutingSettings>,
  logger: Logger,
  onKeyRefused?: (endpoint: string) => void,
): Routing {
  const s = { ...defaultRoutingSettings, ...settings };
  return {
    settings: s,
    admission: new Admission({
      timeoutMs: s.queueTimeoutMs,
      batchSharePercent: s.batchSharePercent,
    }),
    prefixIndex: new PrefixIndex(s.prefixIndexSize),
    upstream: engineUpstream(),
    keyRefused: (endpoint) => {
      logger.warn("an outside provider refused a key; its endpoint is skipped for a while", {
        endpoint,
      });
      onKeyRefused?.(endpoint);
    },
  };
}
