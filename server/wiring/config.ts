/**
 * The control plane's settings. `server.yaml` in the data directory holds them; every one also
 * has a flag and an environment variable (flag over env over file over default).
 */
import {
  bool,
  ConfigError,
  fromFile,
  fromFlagsOrEnv,
  int,
  live,
  oneOf,
  type Resolved,
  resolveSettings,
  text,
  textMatching,
} from "../../core/settings.ts";
import { defaultDataDir } from "../../core/paths.ts";
import { peopleAuthSettings, peopleSettings } from "../auth/people_settings.ts";
import { ldapSettings } from "../auth/ldap/ldap_settings.ts";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import type { ModelDef } from "../models/model_schema.ts";
import { parseModelList } from "../models/model_yaml.ts";
import { AppError } from "../../core/errors.ts";
import { edgeSettings } from "../edge/settings.ts";
import { controlSettings } from "../control/control_settings.ts";
import { withOtelAliases } from "../observe/otel_env.ts";

/** OpenTelemetry traces (server/observe/tracing.ts). */
export const otelSettings = {
  otelEndpoint: text(
    "otel.endpoint",
    "",
    "OTLP/HTTP collector for traces, e.g. http://127.0.0.1:4318 (JSON to /v1/traces; empty: no traces). Env OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is read too",
  ),
  otelHeaders: text(
    "otel.headers",
    "",
    "Headers sent with every export, key=value,… (a hosted collector's API key): set it in the environment (OTEL_EXPORTER_OTLP_HEADERS is read too) or server.yaml, not the flag, which others can read in argv",
    { secret: true },
  ),
  otelServiceName: text(
    "otel.service_name",
    "llmgw",
    "service.name on every span. Env OTEL_SERVICE_NAME is read too",
  ),
  otelResourceAttributes: text(
    "otel.resource_attributes",
    "",
    "More resource attributes, key=value,… (deployment.environment=prod). Env OTEL_RESOURCE_ATTRIBUTES is read too",
  ),
  otelSamplePercent: int(
    "otel.sample_percent",
    100,
    "Share of requests traced when the client sent no traceparent (one that did is followed)",
    { min: 0, max: 100 },
  ),
  otelBatchMs: int("otel.batch_ms", 2_000, "How often spans are exported in a batch, in ms", {
    min: 10,
  }),
};

/** Notifications (server/notify/): where they go and how often. */
export const notifySettings = {
  notifyWebhooks: text(
    "notify.webhooks",
    "",
    "Webhook URLs for notifications, comma-separated (prefix slack: for Slack's format; empty: none)",
  ),
  notifySecretFile: text(
    "notify.secret_file",
    "",
    "File holding the secret each notification body is signed with (HMAC-SHA256, header x-llmgw-signature)",
  ),
  notifyQuietMs: live(int(
    "notify.quiet_ms",
    3_600_000,
    "A budget or provider-key episode ends after this long without a repeat; then it may notify again, in ms",
    { min: 1_000 },
  )),
  notifyDiskLowBytes: live(int(
    "notify.disk_low_bytes",
    10 * 1024 ** 3,
    "A node disk (weights, engines) with less free space than this is low, in bytes",
    { min: 0 },
  )),
  notifyAttempts: int("notify.attempts", 6, "Tries per webhook delivery before it is given up", {
    min: 1,
    max: 20,
  }),
  notifyBackoffMs: int(
    "notify.backoff_ms",
    1_000,
    "Wait before the first retry of a delivery; doubles with each try, in ms",
    { min: 10 },
  ),
  notifyQueueSize: int(
    "notify.queue_size",
    1_000,
    "Most deliveries waiting; past it the oldest are dropped and logged",
    { min: 1 },
  ),
};

export const serverSettings = {
  // Secret: it may carry a password, and it is never a cluster setting (it says where they are).
  storeUrl: textMatching(
    "store.url",
    "",
    "Where the store is: empty for the embedded SQLite file in the data directory, or postgres://user@host:port,host2:port/db for PostgreSQL (several hosts are tried in turn; give the password in PGPASSWORD or server.yaml, not the flag)",
    { pattern: /^$|^postgres(ql)?:\/\//i, what: "empty or a postgres:// URL" },
    { secret: true },
  ),
  listen: text("listen", "127.0.0.1:8080", "Address the HTTP listener binds (host:port)"),
  publicUrl: text(
    "public_url",
    "",
    "URL clients use to reach this server, shown in messages (empty: derived from listen)",
  ),
  logLevel: live(oneOf(
    "log_level",
    ["debug", "info", "warn", "error"],
    "info",
    "Least severe log level written",
  )),
  https: bool(
    "https",
    false,
    "Serve the client API and portal over HTTPS with the cluster's own certificate (DATA/tls/) when tls.cert_file is not set",
  ),
  tlsCertFile: text(
    "tls.cert_file",
    "",
    "Certificate chain (PEM) for the client API and portal; with tls.key_file it turns HTTPS on",
  ),
  tlsKeyFile: text("tls.key_file", "", "Private key (PEM) for tls.cert_file"),
  allowPlainHttp: bool(
    "allow_plain_http",
    false,
    "Allow plain HTTP on a non-loopback listen address (only behind a proxy that does TLS)",
  ),
  ...edgeSettings,
  shutdownGraceMs: int(
    "shutdown_grace_ms",
    30_000,
    "On SIGTERM, how long requests in flight (streams included) may take to finish before they are cut, in ms",
    { min: 0 },
  ),
  logFormat: oneOf(
    "log_format",
    ["json", "logfmt"],
    "json",
    "How log lines are written: one JSON object per line, or logfmt key=value pairs",
  ),
  metricsListen: text(
    "metrics_listen",
    "127.0.0.1:9464",
    "Address of the Prometheus /metrics listener (host:port; empty: none). Keep it off the public network",
  ),
  maxBodyBytes: live(int(
    "router.max_body_bytes",
    16 * 1024 * 1024,
    "Largest request body /v1 accepts, in bytes",
    { min: 1024 },
  )),
  firstByteTimeoutMs: live(int(
    "router.first_byte_timeout_ms",
    300_000,
    "How long to wait for an engine's first byte before giving up, in ms",
    { min: 100 },
  )),
  queueTimeoutMs: live(int(
    "router.queue_timeout_ms",
    30_000,
    "How long a request may wait for a replica with room before a 503 with Retry-After, in ms",
    { min: 1 },
  )),
  streamIdleTimeoutMs: live(int(
    "router.stream_idle_timeout_ms",
    60_000,
    "A stream whose engine sends nothing for this long is cut with an error event, in ms (time the client takes to read does not count)",
    { min: 100 },
  )),
  maxAttempts: live(int(
    "router.max_attempts",
    3,
    "Endpoints (replicas, keys, fallback models) one request may be tried on before it fails",
    { min: 1, max: 10 },
  )),
  batchSharePercent: int(
    "router.batch_share_percent",
    20,
    "Share of freed room that waiting batch requests get while interactive ones also wait",
    { min: 1, max: 100 },
  ),
  responsesRetentionDays: int(
    "responses.retention_days",
    30,
    "How long a stored /v1/responses answer (what previous_response_id continues) is kept, in days",
    { min: 1 },
  ),
  filesMaxBytes: int(
    "files.max_bytes",
    512 * 1024 * 1024,
    "Largest file /v1/files accepts, in bytes",
    { min: 1024 },
  ),
  filesProjectQuotaBytes: int(
    "files.project_quota_bytes",
    10 * 1024 * 1024 * 1024,
    "Total bytes of files one project (or a key without a project) may keep in /v1/files",
    { min: 1024 },
  ),
  batchInteractiveSlots: int(
    "batches.interactive_slots",
    1,
    "Slots of each replica batch requests leave for interactive traffic: a batch line is sent only where more are free",
    { min: 1 },
  ),
  batchPricePercent: int(
    "batches.price_percent",
    50,
    "What a /v1/batches line is charged, as a percentage of the model's normal price",
    { min: 0, max: 100 },
  ),
  loadPollMs: int(
    "router.load_poll_interval_ms",
    1_000,
    "How often each replica's engine is asked for its load (each read is bounded by this too), in ms",
    { min: 50 },
  ),
  breakerFailures: int(
    "router.breaker_failures",
    5,
    "Consecutive failures after which an endpoint's circuit breaker opens",
    { min: 1 },
  ),
  breakerCooldownMs: int(
    "router.breaker_cooldown_ms",
    30_000,
    "How long an open breaker keeps requests off its endpoint before one probe is let through, in ms",
    { min: 100 },
  ),
  prefixMinChars: live(int(
    "router.prefix_min_chars",
    1024,
    "Prompts at least this long (in characters) prefer the replica that last saw their prefix",
    { min: 64 },
  )),
  prefixIndexSize: int(
    "router.prefix_index_size",
    100_000,
    "Most prompt-prefix blocks remembered for prefix affinity (in memory)",
    { min: 1 },
  ),
  routerSessionTtlMs: int(
    "router.session_ttl_ms",
    600_000,
    "How long a conversation without a request still holds its place (a slot's share) on its replica, in ms",
    { min: 1_000 },
  ),
  routerSessionTableSize: int(
    "router.session_table_size",
    100_000,
    "Most conversations whose replica is remembered (in memory)",
    { min: 1 },
  ),
  routerSharedSessions: bool(
    "router.shared_sessions",
    true,
    "Keep where each conversation sits in the store, so every control plane sends its turns to the same replica",
  ),
  cacheMaxBytes: int(
    "router.cache.max_bytes",
    256 * 1024 * 1024,
    "Total size of the answer cache (per control plane, in memory), in bytes; past it the least recently used answers go first",
    { min: 0 },
  ),
  cacheMaxEntryBytes: int(
    "router.cache.max_entry_bytes",
    1024 * 1024,
    "An answer larger than this (in bytes) is not kept in the answer cache",
    { min: 1 },
  ),
  cacheEmbeddingModel: text(
    "router.cache.embedding_model",
    "",
    "Catalog model that embeds questions for projects reusing answers to similar ones (cache_similar), called on the gateway's own account; empty: exact answers only",
  ),
  cacheSimilarEntries: int(
    "router.cache.similar_entries",
    10_000,
    "Most questions kept with an embedding for similar lookups (each lookup scans those of its conversation and settings)",
    { min: 1 },
  ),
  slotKeeperEngines: text(
    "router.slot_keeper_engines",
    "llamacpp",
    "Engines (comma-separated) whose slots are pinned per conversation and saved to disk when another takes them",
  ),
  usageFlushMs: int("usage.flush_interval_ms", 200, "How often usage rows are written, in ms", {
    min: 10,
  }),
  usageRetainDays: live(int(
    "usage.retain_days",
    0,
    "Days raw usage rows are kept (0: forever); the per-day sums behind usage summaries are kept regardless",
    { min: 0 },
  )),
  usageBatch: int("usage.batch_size", 50, "Most usage rows written in one transaction", {
    min: 1,
  }),
  keyCacheMs: int(
    "auth.key_cache_ms",
    30_000,
    "How long a checked API key is remembered before the store is asked again, in ms",
    { min: 0 },
  ),
  ...peopleAuthSettings, // people branch
  ...ldapSettings,
  llamaServer: text(
    "engines.llama_server",
    "llama-server",
    "The llama.cpp server binary (a name on PATH or a path)",
  ),
  engineReadyTimeoutMs: int(
    "engines.ready_timeout_ms",
    180_000,
    "How long an engine may take to load its model before it counts as failed, in ms",
    { min: 1_000 },
  ),
  simTokensPerSecond: int(
    "engines.sim_tokens_per_second",
    200,
    "Speed of the built-in simulated engine, in tokens per second",
    { min: 1 },
  ),
  simSlots: int(
    "engines.sim_slots",
    4,
    "Requests the built-in simulated engine generates at once; more wait in its queue",
    { min: 1, max: 256 },
  ),
  portal: bool("portal", true, "Serve the browser portal at /"),
  clusterListen: text(
    "cluster_listen",
    "127.0.0.1:8443",
    "Address of the TLS listener nodes dial to join and keep their control channel (host:port; empty: none)",
  ),
  clusterUrls: text(
    "cluster_urls",
    "",
    "The https URLs nodes dial, comma-separated, written into join codes (empty: derived from cluster_listen)",
  ),
  tlsNames: text(
    "tls.names",
    "",
    "Names and addresses the control plane's certificate is made for, comma-separated, when it is first created (empty: localhost, 127.0.0.1, ::1 and this host's name)",
  ),
  nodeHeartbeatMs: int("nodes.heartbeat_ms", 2_000, "How often agents send a heartbeat, in ms", {
    min: 50,
  }),
  nodeLostAfterMs: int(
    "nodes.lost_after_ms",
    6_000,
    "A connected node that sends nothing for this long is dropped (its channel closed), in ms",
    { min: 100 },
  ),
  nodeReplaceAfterMs: int(
    "nodes.replace_after_ms",
    60_000,
    "How long a node may be gone (an agent restart or crash) before its replicas are replaced elsewhere and it counts as lost, in ms; meanwhile its engines stay in routing while they answer their health check",
    { min: 0 },
  ),
  channelIdleMs: int(
    "nodes.channel_idle_ms",
    5_000,
    "Silence on a node's channel after which the control plane pings it, in ms",
    { min: 50 },
  ),
  channelAnswerMs: int(
    "nodes.channel_answer_ms",
    3_000,
    "How long a ping may go unanswered before the channel is closed, in ms",
    { min: 50 },
  ),
  joinCodeTtlMs: int(
    "nodes.join_code_ttl_ms",
    3_600_000,
    "How long a join code is valid when --expires is not given, in ms",
    { min: 1_000 },
  ),
  // people branch: sign-in, sessions, identity provider, accounting
  ...peopleSettings,
  hfEndpoint: text(
    "weights.hf_endpoint",
    "https://huggingface.co",
    "The Hugging Face endpoint hf: sources are pinned against and fetched from",
    { env: "HF_ENDPOINT" },
  ),
  hfTokenFile: text(
    "weights.hf_token_file",
    "",
    "A file holding a Hugging Face token for private or gated repositories (empty: none)",
  ),
  mirrorDir: text(
    "mirror.dir",
    "",
    "Where the weights mirror keeps its files (empty: DATA/mirror)",
  ),
  evictAfterIdleMs: int(
    "on_demand.evict_after_idle_ms",
    120_000,
    "An on-demand replica unrequested this long may be stopped (once past its minimum life), in ms; read live",
    { min: 0 },
  ),
  minLifetimeMs: int(
    "on_demand.min_lifetime_ms",
    300_000,
    "A started on-demand replica is not evicted before this, so two models do not take turns paying for loads, in ms; read live",
    { min: 0 },
  ),
  requestWaitMs: int(
    "on_demand.request_wait_ms",
    60_000,
    "How long a request for a model with no ready replica waits for one to start before a 503 with Retry-After, in ms",
    { min: 0 },
  ),
  reconcileIntervalMs: int(
    "reconciler.interval_ms",
    2_000,
    "How often the reconciler compares the catalog with what runs (it also runs on every report), in ms",
    { min: 20 },
  ),
  drainGraceMs: int(
    "reconciler.drain_grace_ms",
    300_000,
    "How long a draining replica may finish its requests before it is stopped anyway, in ms",
    { min: 0 },
  ),
  failureBackoffMs: int(
    "reconciler.failure_backoff_ms",
    30_000,
    "After a replica fails to start, how long before the model is started again, in ms",
    { min: 0 },
  ),
  startupTimeoutMs: int(
    "reconciler.startup_timeout_ms",
    1_200_000,
    "A replica fetching or starting with no progress this long has failed, in ms",
    { min: 1_000 },
  ),
  mcpCallTimeoutMs: int(
    "mcp.call_timeout_ms",
    30_000,
    "How long one MCP tool call (or a company server's tool list) may take before it is cut, in ms",
    { min: 100 },
  ),
  mcpMaxBytes: int(
    "mcp.max_bytes",
    1_048_576,
    "The largest MCP tool call's arguments, and the largest answer passed back, in bytes",
    { min: 1_024 },
  ),
  ...controlSettings,
  ...otelSettings,
  ...notifySettings,
};

export type ServerConfig = Resolved<typeof serverSettings> & {
  dataDir: string;
  /** server.yaml's `models:` list: declared there, edited there only. */
  models?: ModelDef[];
  /** Settings given by a flag or env for this process: they beat the cluster's stored settings. */
  overridden?: ReadonlySet<string>;
  /** Settings server.yaml sets: after the first start the store's values beat them. */
  inFile?: ReadonlySet<string>;
};

/** Settings that decide where the rest come from; they exist only as flags and env. */
export const locationSettings = {
  dataDir: text("data_dir", defaultDataDir(), "Data directory (store, secrets, server.yaml)", {
    flag: "data",
    env: "LLMGW_DATA",
  }),
};

export interface LoadOptions {
  flags: Record<string, string | boolean | undefined>;
  env: Record<string, string | undefined>;
}

/** Resolves the whole server config: where the data directory is, then server.yaml inside it. */
export async function loadServerConfig(given: LoadOptions): Promise<ServerConfig> {
  const opts = { ...given, env: withOtelAliases(given.env) };
  const { dataDir } = resolveSettings(locationSettings, opts);
  const path = `${dataDir}/server.yaml`;
  let yaml: { path: string; text: string } | undefined;
  try {
    yaml = { path, text: await Deno.readTextFile(path) };
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const split = yaml ? splitModels(yaml) : undefined;
  const settings = resolveSettings(serverSettings, {
    ...opts,
    ...(split ? { yaml: split.yaml } : {}),
  });
  return {
    ...settings,
    dataDir,
    overridden: fromFlagsOrEnv(serverSettings, opts),
    inFile: split ? fromFile(serverSettings, split.yaml) : new Set(),
    ...(split?.models ? { models: split.models } : {}),
  };
}

/** Takes the `models:` list out of server.yaml (the settings reader knows only settings). */
function splitModels(file: { path: string; text: string }) {
  let doc: unknown;
  try {
    doc = parseYaml(file.text);
  } catch {
    return { yaml: file }; // the settings reader says what is wrong with it
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc) || !("models" in doc)) {
    return { yaml: file };
  }
  const { models, ...rest } = doc as Record<string, unknown>;
  let defs: ModelDef[];
  try {
    defs = models === null ? [] : parseModelList(models);
  } catch (e) {
    if (e instanceof AppError) throw new ConfigError(`Invalid ${file.path}: ${e.params.detail}`);
    throw e;
  }
  return {
    yaml: { path: file.path, text: Object.keys(rest).length ? stringifyYaml(rest) : "" },
    models: defs,
  };
}

export function parseListen(listen: string): { hostname: string; port: number } {
  const m = /^\[?([^\]]*?)\]?:(\d+)$/.exec(listen);
  if (!m) throw new TypeError(`Invalid listen address: expected host:port, got "${listen}"`);
  return { hostname: m[1] || "0.0.0.0", port: Number(m[2]) };
}
