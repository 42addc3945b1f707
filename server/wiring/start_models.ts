/**
 * Builds the models service for a control plane with a cluster listener: the replica table, the
 * reconciler (started), the admin operations and the request path's gate; loads server.yaml's
 * models into the catalog. Settings are read from the config object at every step, so a live
 * settings holder that updates it changes them without a restart.
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import type { Store } from "../../db/store.ts";
import type { ServerConfig } from "./config.ts";
import type { NodeHub } from "../nodes/node_hub.ts";
import type { NodeStore } from "../nodes/node_store.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import { createModelGate, type ModelGate } from "../models/model_gate.ts";
import { ModelServices } from "../models/model_services.ts";
import { Reconciler, type ReconcilerSettings } from "../models/reconciler.ts";
import { ReplicaRecords } from "../models/replica_records.ts";
import { HfClient } from "../weights/hf_client.ts";
import type { MirrorService } from "../weights/mirror.ts";
import { parseSource as parseWeightsSource } from "../weights/parse_source.ts";
import { pinSource } from "../weights/pin_source.ts";
import { readHubToken } from "./start_mirror.ts";
import type { PinRemote } from "../models/model_services.ts";
import type { ReadPinnedConfig } from "../models/read_facts.ts";
import { createHash } from "node:crypto";
import type { LeaderGate } from "../control/leadership.ts";

/**
 * Pins hf: and URL sources against the configured hub (the token read once, never logged), and
 * reads a pinned set's config.json back at its commit, checked against the pinned sha256.
 */
export async function remoteWeights(
  config: Pick<ServerConfig, "hfEndpoint" | "hfTokenFile">,
  doFetch: typeof fetch = fetch,
): Promise<{ pin: PinRemote; readConfig: ReadPinnedConfig }> {
  const endpoint = config.hfEndpoint.replace(/\/+$/, "");
  const token = await readHubToken(config.hfTokenFile);
  const hub = endpoint
    ? new HfClient({ endpoint, fetch: doFetch, ...(token ? { token } : {}) })
    : null;
  return {
    pin: (source, { sha256, ...opts }) =>
      pinSource(
        parseWeightsSource(source, {
          ...(endpoint ? { hubEndpoint: endpoint } : {}),
          ...(sha256 ? { sha256 } : {}),
        }),
        { hub, ...opts },
      ),
    readConfig: async (pinned) => {
      if (pinned.kind !== "hf" || !hub) return undefined;
      const file = pinned.files.find((f) => f.path === "config.json");
      if (!file) return undefined;
      const bytes = await hub.readSmallFile(pinned.repo, pinned.commit, file.path);
      const sha = createHash("sha256").update(bytes).digest("hex");
      if (sha !== file.sha256) {
        throw new Error(`${pinned.repo}/${file.path} changed since it was pinned (sha256 ${sha})`);
      }
      return JSON.parse(new TextDecoder().decode(bytes));
    },
  };
}

export interface ModelsRuntime {
  services: ModelServices;
  gate: ModelGate;
  reconciler: Reconciler;
  close(): void;
}

/** The settings the reconciler reads at each step. */
export type ReconcilerConfig = Pick<
  ServerConfig,
  | "reconcileIntervalMs"
  | "nodeLostAfterMs"
  | "nodeReplaceAfterMs"
  | "evictAfterIdleMs"
  | "minLifetimeMs"
  | "drainGraceMs"
  | "failureBackoffMs"
  | "startupTimeoutMs"
  | "simTokensPerSecond"
>;

export function reconcilerSettings(config: ReconcilerConfig): ReconcilerSettings {
  return {
    intervalMs: config.reconcileIntervalMs,
    replaceAfterMs: config.nodeReplaceAfterMs,
    evictAfterIdleMs: config.evictAfterIdleMs,
    minLifetimeMs: config.minLifetimeMs,
    drainGraceMs: config.drainGraceMs,
    failureBackoffMs: config.failureBackoffMs,
    failureAvoidMs: Math.max(config.failureBackoffMs * 20, 60_000),
    startupTimeoutMs: config.startupTimeoutMs,
    engineArgs: {
      sim: ["--tokens-per-second", String(config.simTokensPerSecond)],
    },
  };
}

export async function startModels(
  config:
    & ReconcilerConfig
    & Pick<ServerConfig, "hfEndpoint" | "hfTokenFile" | "models" | "requestWaitMs">,
  deps: {
    store: Store;
    clock: Clock;
    logger: Logger;
    catalog: ModelCatalog;
    replicas: ReplicaTable;
    hub: NodeHub;
    nodes: NodeStore;
    mirror?: MirrorService;
    /** Only the leader reconciles; always this one, when not given. */
    leadership?: LeaderGate;
  },
): Promise<ModelsRuntime> {
  const records = await ReplicaRecords.load(deps.store);
  const reconciler = new Reconciler({
    clock: deps.clock,
    logger: deps.logger,
    catalog: deps.catalog,
    hub: deps.hub,
    nodes: deps.nodes,
    replicas: deps.replicas,
    records,
    settings: () => reconcilerSettings(config),
    ...(deps.leadership ? { isLeader: () => deps.leadership!.isLeader } : {}),
  });
  const services = new ModelServices({
    catalog: deps.catalog,
    reconciler,
    records,
    logger: deps.logger.child({ component: "models" }),
    replicas: deps.replicas,
    ...await remoteWeights(config),
    ...(deps.mirror ? { mirror: deps.mirror } : {}),
  });
  await services.loadConfig(config.models ?? []);
  const gate = createModelGate({
    reconciler,
    replicas: deps.replicas,
    requestWaitMs: () => config.requestWaitMs,
  });
  deps.hub.onReport = () => reconciler.kick();
  deps.catalog.subscribe(() => reconciler.kick());
  reconciler.start();
  deps.leadership?.duty({
    name: "reconciler",
    // What the previous leader placed is in the store, not in this control plane's copy.
    start: async () => {
      await records.reload();
      reconciler.tookOver();
    },
    stop: () => {},
  });
  return {
    services,
    gate,
    reconciler,
    close: () => {
      services.close();
      reconciler.close();
    },
  };
}
