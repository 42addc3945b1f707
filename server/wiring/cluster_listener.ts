/**
 * The TLS listener nodes dial (`cluster_listen`), with the services behind it: join codes, the
 * node store, the hub of live channels and the mirror's files. The CA and certificate are created when missing (as
 * `init` does), so a data directory made before TLS existed still starts.
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { notLeaderCloseCode, notLeaderReason } from "../../core/protocol/close_codes.ts";
import type { LeaderGate } from "../control/leadership.ts";
import { ConfigError } from "../../core/settings.ts";
import type { Store } from "../../db/store.ts";
import { parseListen, type ServerConfig } from "./config.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import type { MirrorService } from "../weights/mirror.ts";
import { ensureClusterTls, loadClusterTls, tlsNames } from "../tls/cluster_tls.ts";
import { nodeCertificates } from "../tls/node_certificate.ts";
import type { NodeServices } from "../nodes/node_services.ts";
import { clusterApp } from "../nodes/cluster_app.ts";
import { JoinCodes } from "../nodes/join_codes.ts";
import { type NodeEvents, NodeHub } from "../nodes/node_hub.ts";
import { NodeStore } from "../nodes/node_store.ts";
import { replicaKey } from "../nodes/replica_key.ts";

export interface ClusterListener {
  urls: string[];
  services: NodeServices;
  /** The stored nodes (the reconciler's snapshot reads labels and cordons from it). */
  nodeStore: NodeStore;
  /** The engine key of replica `nodeId/replicaId` (derived from the cluster secret). */
  replicaKeyOf(id: string): string;
  close(): Promise<void>;
}

/** The settings the cluster listener and its node hub read. */
export type ClusterListenerConfig = Pick<
  ServerConfig,
  | "dataDir"
  | "tlsNames"
  | "clusterListen"
  | "clusterUrls"
  | "nodeHeartbeatMs"
  | "nodeLostAfterMs"
  | "nodeReplaceAfterMs"
  | "channelIdleMs"
  | "channelAnswerMs"
  | "joinCodeTtlMs"
>;

export async function startClusterListener(
  config: ClusterListenerConfig,
  deps: {
    store: Store;
    clock: Clock;
    logger: Logger;
    replicas: ReplicaTable;
    catalog: ModelCatalog;
    events?: NodeEvents;
    /** Served to nodes at /cluster/v1/mirror/. */
    mirror?: MirrorService;
    /** The other live control planes' cluster URLs, carried by join codes beside this one's. */
    peerUrls?: () => Promise<string[]>;
    /** Only the leader holds nodes' channels; always this one, when not given. */
    leadership?: LeaderGate;
  },
): Promise<ClusterListener> {
  await ensureClusterTls(config.dataDir, tlsNames(config.tlsNames));
  const tls = await loadClusterTls(config.dataDir);
  const clusterSecret = (await Deno.readTextFile(`${config.dataDir}/cluster.secret`)).trim();
  const nodes = new NodeStore({ store: deps.store, clock: deps.clock });
  const hub = new NodeHub({
    nodes,
    clock: deps.clock,
    logger: deps.logger,
    replicas: deps.replicas,
    catalog: deps.catalog,
    clusterSecret,
    nodeCertificate: nodeCertificates(config.dataDir),
    ...(deps.events ? { events: deps.events } : {}),
    ...(deps.leadership ? { epoch: () => deps.leadership!.epoch } : {}),
    settings: {
      heartbeatMs: config.nodeHeartbeatMs,
      lostAfterMs: config.nodeLostAfterMs,
      replaceAfterMs: config.nodeReplaceAfterMs,
      idleMs: config.channelIdleMs,
      answerMs: config.channelAnswerMs,
    },
  });
  let urls: string[] = [];
  const joinCodes = new JoinCodes({
    store: deps.store,
    clock: deps.clock,
    cluster: async () => ({
      urls: [...new Set([...urls, ...(await deps.peerUrls?.() ?? [])])],
      caFingerprint: tls.caFingerprint,
    }),
  });
  const app = clusterApp({
    joinCodes,
    nodes,
    hub,
    logger: deps.logger,
    ...(deps.mirror ? { mirror: deps.mirror } : {}),
    ...(deps.leadership ? { leads: () => deps.leadership!.isLeader } : {}),
  });
  // A control plane that stops leading sends its nodes on to the one that does.
  deps.leadership?.duty({
    name: "nodes' channels",
    start: () => {},
    stop: () => hub.release(notLeaderCloseCode, notLeaderReason),
  });
  const { hostname, port } = parseListen(config.clusterListen);
  const listening = Promise.withResolvers<Deno.NetAddr>();
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname,
      port,
      cert: tls.certChainPem,
      key: tls.keyPem,
      onListen: (addr) => listening.resolve(addr as Deno.NetAddr),
      onError: (e) => {
        deps.logger.error("cluster request failed outside the app", { error: e });
        return new Response("internal error", { status: 500 });
      },
    }, app.fetch);
  } catch (e) {
    hub.close();
    throw new ConfigError(
      `Cannot listen for nodes on ${config.clusterListen} (cluster_listen): ${
        (e as Error).message
      }. Set --cluster-listen HOST:PORT, or "" for no cluster listener`,
    );
  }
  const addr = await listening.promise;
  urls = config.clusterUrls
    ? config.clusterUrls.split(",").map((u) => u.trim().replace(/\/$/, "")).filter(Boolean)
    : [`https://${shownHost(addr.hostname)}:${addr.port}`];
  deps.logger.info("cluster listener on", { urls });
  return {
    urls,
    services: { hub, joinCodes, joinCodeTtlMs: config.joinCodeTtlMs },
    nodeStore: nodes,
    replicaKeyOf(id) {
      const slash = id.indexOf("/");
      return replicaKey(clusterSecret, id.slice(0, slash), id.slice(slash + 1));
    },
    async close() {
      hub.close();
      await server.shutdown();
    },
  };
}

function shownHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return Deno.hostname();
  return host.includes(":") ? `[${host}]` : host;
}
