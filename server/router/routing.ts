/**
 * The router's own state and settings, built once at start: the admission queues, the prefix
 * index and what the request path needs to know. Passed to dispatch through the app's deps.
 */
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import { Admission } from "./slots.ts";
import { PrefixIndex } from "./prefix_index.ts";
import { defaultPrefixOptions, type PrefixOptions } from "./request_keys.ts";
import { SessionPlaces } from "./session_places.ts";
import type { Peers } from "../control/peers.ts";
import { SessionTable } from "./session_table.ts";
import { SlotKeeper } from "./slot_keeper.ts";
import { KeyBackoff, type KeyBackoffOptions } from "./key_backoff.ts";
import { engineUpstream, type Upstream } from "./upstream/upstream.ts";

export interface RoutingSettings {
  queueTimeoutMs: number;
  streamIdleTimeoutMs: number;
  /** Endpoints tried for one request, fallbacks included, before giving up. */
  maxAttempts: number;
  batchSharePercent: number;
  prefix: PrefixOptions;
  prefixIndexSize: number;
  /** Sessions remembered at most, and how long one without a request still counts as live. */
  sessionTableSize: number;
  sessionTtlMs: number;
  /**
   * Sessions' places shared with the other control planes on the store (session_places.ts): off,
   * each router places sessions by what it alone has seen.
   */
  sharedSessions: boolean;
  /** How long a session's shared place is trusted before it is read again. */
  sessionRecheckMs: number;
  /** The longest the request path waits on the store for a session's place. */
  sessionStoreWaitMs: number;
  /** Engines whose slots the router pins and saves to disk for sessions (see slot_keeper.ts). */
  slotKeeperEngines: readonly string[];
  /** Saved sessions remembered per replica. */
  savedSessionsPerReplica: number;
  /** How a key whose requests keep making an engine fail is held off (key_backoff.ts). */
  keyBackoff?: Partial<KeyBackoffOptions>;
}

export const defaultRoutingSettings: RoutingSettings = {
  queueTimeoutMs: 30_000,
  streamIdleTimeoutMs: 60_000,
  maxAttempts: 3,
  batchSharePercent: 20,
  prefix: defaultPrefixOptions,
  prefixIndexSize: 100_000,
  sessionTableSize: 100_000,
  // About how long an engine's slot keeps a conversation that is not being continued.
  sessionTtlMs: 10 * 60_000,
  sharedSessions: true,
  sessionRecheckMs: 5_000,
  sessionStoreWaitMs: 250,
  slotKeeperEngines: ["llamacpp"],
  savedSessionsPerReplica: 1_000,
};

export interface Routing {
  readonly settings: RoutingSettings;
  readonly admission: Admission;
  readonly prefixIndex: PrefixIndex;
  readonly sessions: SessionTable;
  /** The sessions' places shared through the store; absent: this router's own table only. */
  readonly places: SessionPlaces | undefined;
  readonly slotKeeper: SlotKeeper;
  /** Keys held off a model for the engine failures their requests caused. */
  readonly keyBackoff: KeyBackoff;
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
  store?: Store,
  peers?: Peers,
): Routing {
  const s = { ...defaultRoutingSettings, ...settings };
  const sessions = new SessionTable({ maxEntries: s.sessionTableSize, ttlMs: s.sessionTtlMs });
  const places = store && s.sharedSessions
    ? new SessionPlaces({
      store,
      logger,
      ttlMs: s.sessionTtlMs,
      recheckMs: s.sessionRecheckMs,
      waitMs: s.sessionStoreWaitMs,
      maxEntries: s.sessionTableSize,
      ...(peers ? { peers } : {}),
    }, sessions)
    : undefined;
  return {
    settings: s,
    admission: new Admission({
      timeoutMs: s.queueTimeoutMs,
      batchSharePercent: s.batchSharePercent,
    }),
    prefixIndex: new PrefixIndex(s.prefixIndexSize),
    sessions,
    places,
    slotKeeper: new SlotKeeper({
      engines: new Set(s.slotKeeperEngines),
      maxSaved: s.savedSessionsPerReplica,
      timeoutMs: 5_000,
    }),
    keyBackoff: new KeyBackoff(s.keyBackoff),
    upstream: engineUpstream(),
    keyRefused: (endpoint) => {
      logger.warn("an outside provider refused a key; its endpoint is skipped for a while", {
        endpoint,
      });
      onKeyRefused?.(endpoint);
    },
  };
}
