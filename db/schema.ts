/**
 * The store's schema. Times are Unix milliseconds; ids are ULIDs (sortable by creation).
 * Secrets are stored only as hashes.
 */
import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/** Roles, widest first. `admin` is the skeleton's name for administrator, still read as such. */
export const roles = ["administrator", "operator", "tenant_admin", "member", "viewer"] as const;

export const orgs = sqliteTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  createdAt: integer("created_at").notNull(),
});

export const teams = sqliteTable("teams", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull().references(() => orgs.id),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("teams_org_name").on(t.orgId, t.name)]);

export const projects = sqliteTable("projects", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull().references(() => orgs.id),
  teamId: text("team_id").notNull().references(() => teams.id),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("projects_team_name").on(t.teamId, t.name)]);
import type { PinnedSource } from "../core/weights/pinned_source.ts";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  /**
   * Self-describing: `pbkdf2-sha256$iterations$salt$hash` (older `scrypt$N$r$p$salt$hash` still
   * verifies). `!oidc` means the password is kept by the identity provider: never a local one.
   */
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: [...roles, "admin"] }).notNull(),
  createdAt: integer("created_at").notNull(),
  email: text("email").unique(),
  displayName: text("display_name"),
  /** The person's tenant: none for staff (administrator, operator), an org, or a team in it. */
  orgId: text("org_id").references(() => orgs.id),
  teamId: text("team_id").references(() => teams.id),
  state: text("state", { enum: ["active", "suspended"] }).notNull().default("active"),
  /** `issuer|subject` for people who sign in through OIDC. */
  oidcSubject: text("oidc_subject").unique(),
});

export const adminTokens = sqliteTable("admin_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** sha256 of the token; tokens are 256-bit random, so a fast hash is enough. */
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: integer("created_at").notNull(),
  revokedAt: integer("revoked_at"),
});

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** The first characters of the key, shown in listings so a person can tell keys apart. */
  prefix: text("prefix").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  userId: text("user_id").references(() => users.id),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at"),
  revokedAt: integer("revoked_at"),
  /** The project the key spends from; with no user it is the project's service key. */
  projectId: text("project_id").references(() => projects.id),
  /** Written in batches, not per request: accurate to the flush interval. */
  lastUsedAt: integer("last_used_at"),
});

/** Limits set at one level of the tree; null means "inherit from above". */
export const limits = sqliteTable("limits", {
  scopeKind: text("scope_kind", { enum: ["global", "org", "team", "project", "person", "key"] })
    .notNull(),
  scopeId: text("scope_id").notNull(),
  rpm: integer("rpm"),
  tpm: integer("tpm"),
  budgetDayMicros: integer("budget_day_micros"),
  budgetMonthMicros: integer("budget_month_micros"),
  budgetDayTokens: integer("budget_day_tokens"),
  budgetMonthTokens: integer("budget_month_tokens"),
  /** Glob patterns, JSON array; null inherits. */
  models: text("models", { mode: "json" }).$type<string[]>(),
  maxKeyTtlMs: integer("max_key_ttl_ms"),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [primaryKey({ columns: [t.scopeKind, t.scopeId] })]);

/** Budget counters, persisted from memory every few seconds and restored at start. */
export const budgetCounters = sqliteTable("budget_counters", {
  scopeKind: text("scope_kind").notNull(),
  scopeId: text("scope_id").notNull(),
  period: text("period", { enum: ["day", "month"] }).notNull(),
  periodStart: integer("period_start").notNull(),
  micros: integer("micros").notNull(),
  tokens: integer("tokens").notNull(),
}, (t) => [primaryKey({ columns: [t.scopeKind, t.scopeId, t.period] })]);

/** Sign-in sessions, stored as the sha256 of the cookie's token. */
export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  tokenHash: text("token_hash").notNull().unique(),
  userId: text("user_id").notNull().references(() => users.id),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  revokedAt: integer("revoked_at"),
});

/** The audit trail: written only, never changed through the product. */
export const audit = sqliteTable("audit", {
  id: text("id").primaryKey(),
  at: integer("at").notNull(),
  actorKind: text("actor_kind", { enum: ["token", "session", "key", "system"] }).notNull(),
  actorId: text("actor_id").notNull(),
  actorName: text("actor_name").notNull(),
  action: text("action").notNull(),
  targetKind: text("target_kind").notNull(),
  targetId: text("target_id").notNull(),
  /** The tenant the target lives in, so a tenant administrator reads only their own trail. */
  orgId: text("org_id"),
  before: text("before", { mode: "json" }),
  after: text("after", { mode: "json" }),
}, (t) => [index("audit_at").on(t.at)]);

export const models = sqliteTable("models", {
  name: text("name").primaryKey(),
  engine: text("engine").notNull(),
  /** A GGUF path for llama.cpp; empty for the sim engine. */
  source: text("source").notNull(),
  /** Absent means absent: never an empty string. */
  description: text("description"),
  /** Extra engine arguments as a JSON array, checked by the agent's flag gate. */
  args: text("args", { mode: "json" }).$type<string[]>().notNull(),
  /** `chat`, `batch` or `long-context`; null means the default (`chat`). */
  routingProfile: text("routing_profile"),
  /** Models (by name) tried in order when none of this model's replicas can take a request. */
  fallbacks: text("fallbacks", { mode: "json" }).$type<string[]>().notNull().default([]),
  /** Requests one replica serves well at once; null means the engine's own (sim: 4). */
  slots: integer("slots"),
  /** The name sent to the engine or provider instead of this one; null sends this name. */
  upstreamModel: text("upstream_model"),
  /**
   * For engine `external` (whose `source` is the provider's OpenAI base URL): the files holding
   * its keys, each its own endpoint with a share of requests. Never the keys themselves.
   */
  externalKeys: text("external_keys", { mode: "json" }).$type<ExternalKeyFile[]>(),
  /**
   * The weights as pinned when the model was added: the commit and every file's published
   * sha256 (agent/weights/pinned_source.ts). Null for models without fetched weights (sim).
   */
  origin: text("origin", { mode: "json" }).$type<PinnedSource>(),
  /** Pickle formats run code when loaded; only a model that says so may use them. */
  allowPickle: integer("allow_pickle", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  /**
   * Prices per 1,000 tokens in micro-units of currency; null: the default price. A cached price
   * of 0 means the prompt price.
   */
  pricePrompt: integer("price_prompt"),
  priceCompletion: integer("price_completion"),
  priceCached: integer("price_cached"),
  /**
   * The full catalog entry (server/models/model_schema.ts `ModelDef`, as JSON) for a model the
   * reconciler places; null for one declared only by the columns above (`up`'s own, a shard
   * started by hand). The columns above are filled from it, so the router never reads it.
   */
  def: text("def", { mode: "json" }).$type<Record<string, unknown>>(),
  /** What was read of its files (GGUF header): `ModelFacts`, as JSON. */
  facts: text("facts", { mode: "json" }).$type<Record<string, unknown>>(),
  /** `config` (server.yaml: edited there only), `api` (admin API / ctl), null (older rows). */
  declaredIn: text("declared_in"),
  /** Stopped by an administrator: the entry stays, nothing runs, clients are told why. */
  stopped: integer("stopped", { mode: "boolean" }).notNull().default(false),
});

export interface ExternalKeyFile {
  file: string;
  /** Share of requests relative to the other keys; absent or 0 counts as 1. */
  weight?: number;
}

export const usage = sqliteTable("usage", {
  id: text("id").primaryKey(),
  requestId: text("request_id").notNull(),
  at: integer("at").notNull(),
  keyId: text("key_id"),
  model: text("model").notNull(),
  endpoint: text("endpoint").notNull(),
  promptTokens: integer("prompt_tokens").notNull(),
  completionTokens: integer("completion_tokens").notNull(),
  /** HTTP status sent to the client; 499 when the client went away first. */
  status: integer("status").notNull(),
  latencyMs: integer("latency_ms").notNull(),
  /** Time to first byte of the answer; null when none was sent. */
  ttftMs: integer("ttft_ms"),
  stream: integer("stream", { mode: "boolean" }).notNull(),
  /** The model that answered: the one asked for, or one of its fallbacks. Null when none did. */
  servedModel: text("served_model"),
  /** Prompt tokens the engine read from its cache (counted within prompt_tokens). */
  cachedTokens: integer("cached_tokens").notNull().default(0),
  /** Priced at the model that served, in micro-units, rounded up. */
  costMicros: integer("cost_micros").notNull().default(0),
  /** Time spent waiting for a replica to have room. */
  queueMs: integer("queue_ms").notNull().default(0),
  /** The replica or endpoint that answered last. */
  replicaId: text("replica_id"),
  /** The routing profile used. */
  profile: text("profile"),
}, (t) => [index("usage_at").on(t.at), index("usage_key_at").on(t.keyId, t.at)]);

/** Machines that joined the cluster. Live state (connected, last report) is kept in memory too. */
export const nodes = sqliteTable("nodes", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  labels: text("labels", { mode: "json" }).$type<Record<string, string>>().notNull(),
  /** sha256 of the node's credential; deleting the row revokes it. */
  credentialHash: text("credential_hash").notNull().unique(),
  /** No new shards are placed on a cordoned node. */
  cordoned: integer("cordoned", { mode: "boolean" }).notNull(),
  /** Its shards are to move elsewhere (the reconciler's job); implies cordoned. */
  draining: integer("draining", { mode: "boolean" }).notNull(),
  createdAt: integer("created_at").notNull(),
  lastHeardAt: integer("last_heard_at"),
  /** The agent's llmgw version, from its hello. */
  version: text("version"),
  /** The last heartbeat's hardware part (host, GPUs, engines), as JSON. */
  lastReport: text("last_report", { mode: "json" }).$type<Record<string, unknown>>(),
});

/** One-time codes that let a machine join; the secret is stored only as its hash. */
export const joinCodes = sqliteTable("join_codes", {
  id: text("id").primaryKey(),
  secretHash: text("secret_hash").notNull().unique(),
  labels: text("labels", { mode: "json" }).$type<Record<string, string>>().notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  /** The node that used it. */
  nodeId: text("node_id"),
});

/**
 * Versions of weights kept on the control plane's mirror (DATA/mirror/<version_dir>/), served
 * to nodes at /mirror/<version_dir>/<path>. A complete version is never overwritten: a new
 * commit is a new row.
 */
export const mirrorVersions = sqliteTable("mirror_versions", {
  id: text("id").primaryKey(),
  /** The source as given, without credentials, query or fragment. */
  source: text("source").notNull(),
  /** `org/name/<commit>` or `url/<sha256>`. */
  versionDir: text("version_dir").notNull(),
  /** Digest of the file list, so two sets in one version folder are two versions. */
  digest: text("digest").notNull(),
  pinned: text("pinned", { mode: "json" }).$type<PinnedSource>().notNull(),
  status: text("status", { enum: ["fetching", "complete", "failed"] }).notNull(),
  /** Null when a file's size is not known. */
  bytesTotal: integer("bytes_total"),
  error: text("error"),
  createdAt: integer("created_at").notNull(),
  completedAt: integer("completed_at"),
}, (t) => [uniqueIndex("mirror_versions_version").on(t.versionDir, t.digest)]);

/**
 * Every replica, one row each, in two halves that come and go on their own (null as a group):
 * - placement (profile … reason): the reconciler's record of a replica it placed, with its state
 *   (server/models/replica_records.ts); null for one started by hand. Live figures (in flight, last
 *   request, download progress) are kept in memory only.
 * - launch (engine … desired_at): what its node is meant to run (server/nodes/node_store.ts),
 *   re-sent to the agent on every connection so a restarted agent adopts or restarts it; null
 *   once the node was told to stop it while the reconciler keeps the record (a failed replica,
 *   kept for its back-off). No secret: each replica's engine key is derived from the cluster
 *   secret.
 * A row with neither half is deleted. Removing a node removes its replicas, as the reconciler
 * stops those of a removed node anyway.
 */
export const replicas = sqliteTable("replicas", {
  id: text("id").primaryKey(),
  nodeId: text("node_id").notNull().references(() => nodes.id, { onDelete: "cascade" }),
  model: text("model").notNull(),
  /** When it was first recorded: placed by the reconciler, or started by hand. */
  createdAt: integer("created_at").notNull(),
  profile: integer("profile"),
  gpus: text("gpus", { mode: "json" }).$type<number[]>(),
  perCardBytes: integer("per_card_bytes"),
  ramBytes: integer("ram_bytes"),
  cores: integer("cores"),
  specHash: text("spec_hash"),
  state: text("state"),
  stateSince: integer("state_since"),
  readyAt: integer("ready_at"),
  reason: text("reason"),
  engine: text("engine"),
  modelPath: text("model_path"),
  args: text("args", { mode: "json" }).$type<string[]>(),
  /**
   * What placement decided for it (context, slots, GPU layers, mode…: `ReplicaLaunch` in
   * core/protocol/messages.ts) and its cards; null for one started by hand.
   */
  launch: text("launch", { mode: "json" }).$type<Record<string, unknown>>(),
  /** When its node was told to run it. */
  desiredAt: integer("desired_at"),
}, (t) => [index("replicas_model").on(t.model), index("replicas_node").on(t.nodeId)]);

/**
 * Usage summed per UTC day, key and model, kept in the same transaction as each batch of usage
 * rows, so a year's summary reads a few thousand rows instead of millions; raw rows may be
 * deleted after `usage.retain_days` while these sums stay.
 */
export const usageDaily = sqliteTable("usage_daily", {
  /** UTC day, `YYYY-MM-DD`. */
  day: text("day").notNull(),
  /** The key's id; "" for requests without one. */
  keyId: text("key_id").notNull(),
  /** The model asked for. */
  model: text("model").notNull(),
  requests: integer("requests").notNull(),
  /** Answers with a status of 400 or more (499 included). */
  errors: integer("errors").notNull(),
  promptTokens: integer("prompt_tokens").notNull(),
  cachedTokens: integer("cached_tokens").notNull(),
  completionTokens: integer("completion_tokens").notNull(),
  costMicros: integer("cost_micros").notNull(),
}, (t) => [primaryKey({ columns: [t.day, t.keyId, t.model] })]);

/**
 * The cluster's settings after the first start: seeded from server.yaml, then changed through
 * `ctl config set` or the admin API. One row per key; the value is JSON.
 */
export const clusterSettings = sqliteTable("cluster_settings", {
  key: text("key").primaryKey(),
  value: text("value", { mode: "json" }).notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** A person's portal preferences: language and time zone (absent: from the browser). */
export const portalPrefs = sqliteTable("portal_prefs", {
  userId: text("user_id").primaryKey().references(() => users.id),
  /** "en" or "tr"; null follows the cookie, then Accept-Language. */
  locale: text("locale"),
  /** An IANA time zone such as "Europe/Istanbul"; null is UTC. */
  timeZone: text("time_zone"),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Leases among control planes sharing this store: the row named `leader` says which one places
 * replicas, reconciles and sends notifications. Whoever finds it expired takes it over and adds
 * one to `epoch`, so anything the old holder still does can be told apart (a fencing token).
 * Times are the holders' wall clocks: control planes sharing a store keep them in sync (NTP).
 */
export const controlLeases = sqliteTable("control_leases", {
  name: text("name").primaryKey(),
  holderId: text("holder_id").notNull(),
  /** Where the holder's client API answers (shown by `/leader`). */
  holderUrl: text("holder_url").notNull(),
  epoch: integer("epoch").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

/**
 * One counter per kind of shared state (keys, settings, catalog, limits): a control plane that
 * changes one adds to its counter, and the others, polling the row, reload their caches.
 */
export const changeCounters = sqliteTable("change_counters", {
  topic: text("topic").primaryKey(),
  version: integer("version").notNull(),
  changedAt: integer("changed_at").notNull(),
});

/**
 * The control planes sharing this store, each row refreshed every few seconds by its own: join
 * codes carry every live one's cluster URLs, so a node can move to another when its own goes.
 */
export const controlPlanes = sqliteTable("control_planes", {
  id: text("id").primaryKey(),
  /** Where its client API answers. */
  url: text("url").notNull(),
  /** The https URLs nodes dial. */
  clusterUrls: text("cluster_urls", { mode: "json" }).$type<string[]>().notNull(),
  seenAt: integer("seen_at").notNull(),
});

/**
 * The replicas the leader's nodes report, as every control plane routes to them: the leader
 * writes them every second, the standbys read them. A standby's last use of one is in
 * `replica_use`, so the leader does not evict a replica busy behind a standby.
 */
export const routableReplicas = sqliteTable("routable_replicas", {
  id: text("id").primaryKey(),
  model: text("model").notNull(),
  baseUrl: text("base_url").notNull(),
  state: text("state").notNull(),
  slots: integer("slots"),
  publishedAt: integer("published_at").notNull(),
});

export const replicaUse = sqliteTable("replica_use", {
  replicaId: text("replica_id").notNull(),
  controlId: text("control_id").notNull(),
  lastUsedAt: integer("last_used_at").notNull(),
}, (t) => [primaryKey({ columns: [t.replicaId, t.controlId] })]);

/**
 * A standby's requests waiting for a model with no replica (on demand): the leader, which alone
 * starts replicas, reads them and counts them as its own waiting requests.
 */
export const modelDemand = sqliteTable("model_demand", {
  model: text("model").notNull(),
  controlId: text("control_id").notNull(),
  wantedAt: integer("wanted_at").notNull(),
}, (t) => [primaryKey({ columns: [t.model, t.controlId] })]);

/**
 * Single sign-on flows begun and not yet finished, where every control plane sees them: the
 * browser may come back to another one. Keyed by the state's sha256; the PKCE verifier and
 * nonce must be read back as they are, and live only for the flow's ten minutes.
 */
export const signInFlows = sqliteTable("sign_in_flows", {
  stateHash: text("state_hash").primaryKey(),
  verifier: text("verifier").notNull(),
  nonce: text("nonce").notNull(),
  expiresAt: integer("expires_at").notNull(),
});
