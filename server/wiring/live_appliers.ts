/**
 * Where each live setting takes effect. Every setting marked `live` in server/wiring/config.ts has an
 * applier here (a test checks none is missing); anything read per request from `config`,
 * `limits` or `routing.settings` needs only its value set.
 */
import type { Level, LevelControl } from "../../core/log.ts";
import type { ServerConfig } from "./config.ts";
import type { Limits } from "./deps.ts";
import type { Notifier } from "../notify/notifier.ts";
import type { Routing } from "../router/routing.ts";
import type { ClusterSettings } from "../settings/cluster_settings.ts";

export function applyLiveSettings(
  settings: ClusterSettings,
  t: {
    config: ServerConfig;
    limits: Limits;
    routing: Routing;
    notifier: Notifier;
    logLevel?: LevelControl;
  },
): void {
  const on = <K extends keyof ServerConfig>(name: K, fn: (v: ServerConfig[K]) => void) =>
    settings.onChange(name, (v) => fn(v as ServerConfig[K]));
  on("logLevel", (v) => {
    if (t.logLevel) t.logLevel.level = v as Level;
  });
  on("maxBodyBytes", (v) => (t.limits.maxBodyBytes = v));
  on("firstByteTimeoutMs", (v) => (t.limits.firstByteTimeoutMs = v));
  on("queueTimeoutMs", (v) => {
    t.routing.settings.queueTimeoutMs = v;
    t.routing.admission.setTimeoutMs(v);
  });
  on("streamIdleTimeoutMs", (v) => (t.routing.settings.streamIdleTimeoutMs = v));
  on("maxAttempts", (v) => (t.routing.settings.maxAttempts = v));
  on("prefixMinChars", (v) => {
    t.routing.settings.prefix = { ...t.routing.settings.prefix, minChars: v };
  });
  // Read by the retention sweep from the config at each run.
  on("usageRetainDays", () => {});
  on("notifyQuietMs", (v) => t.notifier.configure({ quietMs: v }));
  on("notifyDiskLowBytes", (v) => t.notifier.configure({ diskLowBytes: v }));
}
