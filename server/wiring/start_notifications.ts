/**
 * Builds the notifier from the settings: the webhook sender (when any URL is set), the episode
 * book-keeping, and the node hub's hooks into it.
 */
import type { Clock } from "../../core/clock.ts";
import type { Logger } from "../../core/log.ts";
import { ConfigError } from "../../core/settings.ts";
import type { ServerConfig } from "./config.ts";
import type { NodeEvents } from "../nodes/node_hub.ts";
import type { ReplicaTable } from "../router/replicas.ts";
import { Notifier } from "../notify/notifier.ts";
import { WebhookSender } from "../notify/webhook_sender.ts";

export interface Notifications {
  notifier: Notifier;
  sender?: WebhookSender;
  nodeEvents: NodeEvents;
  /** Stops; gives queued deliveries up to `graceMs` to go. */
  close(graceMs?: number): Promise<void>;
}

export async function startNotifications(
  config: Pick<
    ServerConfig,
    | "notifyWebhooks"
    | "notifySecretFile"
    | "notifyQueueSize"
    | "notifyAttempts"
    | "notifyBackoffMs"
    | "notifyQuietMs"
    | "notifyDiskLowBytes"
  >,
  deps: {
    clock: Clock;
    logger: Logger;
    replicas: ReplicaTable;
    /** Whether this control plane sends webhooks now (only the leader does); always, when not given. */
    mayNotify?: () => boolean;
  },
): Promise<Notifications> {
  const logger = deps.logger.child({ component: "notify" });
  const urls = config.notifyWebhooks.split(",").map((u) => u.trim()).filter(Boolean);
  for (const u of urls) {
    try {
      const url = new URL(u.replace(/^(slack|json):/, ""));
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error();
    } catch {
      throw new ConfigError(`Invalid setting notify.webhooks: "${u.split("?")[0]}" is not a URL`);
    }
  }
  let secret = "";
  if (config.notifySecretFile) {
    try {
      secret = (await Deno.readTextFile(config.notifySecretFile)).trim();
    } catch (e) {
      throw new ConfigError(
        `Cannot read notify.secret_file ${config.notifySecretFile}: ${(e as Error).message}`,
      );
    }
  }
  const sender = urls.length
    ? new WebhookSender({
      urls,
      secret,
      queueSize: config.notifyQueueSize,
      maxAttempts: config.notifyAttempts,
      backoffMs: config.notifyBackoffMs,
      timeoutMs: 10_000,
      logger,
    })
    : undefined;
  const notifier = new Notifier({
    send: (e) => {
      if (deps.mayNotify?.() ?? true) sender?.send(e);
    },
    clock: deps.clock,
    logger,
    quietMs: config.notifyQuietMs,
    diskLowBytes: config.notifyDiskLowBytes,
    replicas: deps.replicas,
  });
  return {
    notifier,
    ...(sender ? { sender } : {}),
    nodeEvents: {
      connected: (node) => notifier.nodeBack(node),
      lost: (node, reason) => notifier.nodeLost(node, reason),
      heartbeat: (node, hb) => {
        if (hb.host) notifier.disks(node, hb.host.disks);
      },
      replica: (node, s) => notifier.replica(node, s),
    },
    async close(graceMs = 2_000) {
      notifier.close();
      await sender?.close(graceMs);
    },
  };
}
