/**
 * The store's schema. Times are Unix milliseconds; ids are ULIDs (sortable by creation).
 * Secrets are stored only as hashes.
 */
import {
  blob,
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
  /** MCP tools granted (`jira.*`), glob patterns, JSON array; null grants nothing here. */
  tools: text("tools", { mode: "json" }).$type<string[]>(),
  maxKeyTtlMs: integer("max_key_ttl_ms"),
  /** Requests in flight to one model at once, counted at this level. */
  maxParallel: integer("max_parallel"),
  /** A project's share of a busy model's slots against other projects; null is 1. */
  weight: integer("weight"),
  /** Answers reused from the answer cache at this level; null inherits (the nearest level set decides). */
  cache: integer("cache", { mode: "boolean" }),
  /** Requests sampled above temperature 0 (or with none given) are cached too; null inherits. */
  cacheTemperature: integer("cache_temperature", { mode: "boolean" }),
  /** Similar questions reuse an answer at this cosine similarity and above, in thousandths; null inherits. */
  cacheSimilarPermille: integer("cache_similar_permille"),
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

/**
 * Rate-limit counts each control plane reports for the others (the window exchange): absolute
 * per window and name (`r|key:…`, `t|…`), so a report repeated changes nothing. The row named ''
 * (window 0) is the control plane's presence: `reported_at` says it still counts.
 */
export const rateCounts = sqliteTable("rate_counts", {
  plane: text("plane").notNull(),
  name: text("name").notNull(),
  windowStart: integer("window_start").notNull(),
  count: integer("count").notNull(),
  reportedAt: integer("reported_at").notNull(),
}, (t) => [
  primaryKey({ columns: [t.plane, t.name, t.windowStart] }),
  index("rate_counts_window").on(t.windowStart),
]);

/**
 * Budget slices leased to control planes: per budget (level, period, unit) and period, what is
 * committed, spent or handed out in slices not yet given back, never above the budget. A lease is
 * one update of `committed`; `last_grant` is what that update granted (so it needs no read).
 */
export const budgetSlices = sqliteTable("budget_slices", {
  scopeKind: text("scope_kind").notNull(),
  scopeId: text("scope_id").notNull(),
  period: text("period", { enum: ["day", "month"] }).notNull(),
  periodStart: integer("period_start").notNull(),
  unit: text("unit", { enum: ["micros", "tokens"] }).notNull(),
  committed: integer("committed").notNull(),
  lastGrant: integer("last_grant").notNull(),
}, (t) => [
  primaryKey({ columns: [t.scopeKind, t.scopeId, t.period, t.periodStart, t.unit] }),
]);

/**
 * What each control plane wants of each replica's slots (in flight and queued there), reported
 * every interval; every control plane shares a replica's slots out by these rows the same way.
 */
export const slotDemand = sqliteTable("slot_demand", {
  plane: text("plane").notNull(),
  replicaId: text("replica_id").notNull(),
  demand: integer("demand").notNull(),
  reportedAt: integer("reported_at").notNull(),
  /** The slots the leader granted this plane on this replica, and when; absent: none yet. */
  granted: integer("granted"),
  grantedAt: integer("granted_at"),
}, (t) => [primaryKey({ columns: [t.plane, t.replicaId] })]);

/**
 * Where each live conversation sits, shared by every control plane routing to the same replicas
 * (server/router/session_places.ts): the first control plane to place a session inserts its row
 * and the others adopt it, so a conversation whose turns reach different control planes stays on
 * one engine's prompt cache. `session_key` is the tenant-seeded session hash the router keys
 * sessions by (never a session id or a prompt); `seen_at` (ms) is refreshed while the
 * conversation goes on, and rows older than the session TTL count for nothing and are deleted.
 */
export const sessionPlaces = sqliteTable("session_places", {
  sessionKey: integer("session_key").notNull(),
  replicaId: text("replica_id").notNull(),
  seenAt: integer("seen_at").notNull(),
}, (t) => [
  // Declared on the table: a column's own primaryKey() makes it SQLite's rowid, with a default.
  primaryKey({ columns: [t.sessionKey] }),
  index("session_places_replica_seen").on(t.replicaId, t.seenAt),
]);

/**
 * Sign-in throttles every control plane shares (server/auth/store_throttle.ts): failures per
 * name, the name kept as the sha256 of its kind and value (an address, an account, a device
 * mark), never the value itself.
 */
export const signInThrottles = sqliteTable("sign_in_throttles", {
  name: text("name").primaryKey(),
  count: integer("count").notNull(),
  lastAt: integer("last_at").notNull(),
}, (t) => [index("sign_in_throttles_last").on(t.lastAt)]);

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
  /** Per 1,000 tokens (prompt and completion) of an answer served from the answer cache; null: 0. */
  priceCacheHit: integer("price_cache_hit"),
  /** The share of the prices above a batch line pays, in percent; null: the batch setting's. */
  priceBatchPercent: integer("price_batch_percent"),
  /**
   * The full catalog entry (server/models/model_schema.ts `ModelDef`, as JSON) for a model the
   * reconciler places; null for one declared only by the columns above (`up`'s own, a replica
   * started by hand). The columns above are filled from it, so the router never reads it.
   */
  def: text("def", { mode: "json" }).$type<Record<string, unknown>>(),
  /** What was read of its files (GGUF header): `ModelFacts`, as JSON. */
  facts: text("facts", { mode: "json" }).$type<Record<string, unknown>>(),
  /** `config` (server.yaml: edited there only), `api` (admin API / ctl), null (older rows). */
  declaredIn: text("declared_in"),
  /** Stopped by an administrator: the entry stays, nothing runs, clients are told why. */
  stopped: integer("stopped", { mode: "boolean" }).notNull().default(false),
  /**
   * The `judge` role: the guard-model family whose prompt and verdict format it speaks
   * (core/judge_formats.ts); null for a model that is no judge.
   */
  judge: text("judge"),
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
  /**
   * prompt_tokens is the gateway's estimate: the engine's answer ended (broken, stalled, cut)
   * before it reported any usage.
   */
  promptEstimated: integer("prompt_estimated", { mode: "boolean" }).notNull().default(false),
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
  /**
   * Each guardrail verdict on the request (policy, rule, action, microseconds of checking); null
   * when no policy applied. Never the matched text.
   */
  guard: text("guard", { mode: "json" }).$type<
    {
      policy: string;
      rule: string;
      action: string;
      latencyUs: number;
      silent?: true;
      reason?: string;
      fail?: "open" | "closed";
    }[]
  >(),
  /** Served from the answer cache: `exact` or `similar`; null when an engine answered. */
  answerCache: text("answer_cache", { enum: ["exact", "similar"] }),
}, (t) => [index("usage_at").on(t.at), index("usage_key_at").on(t.keyId, t.at)]);

/** Machines that joined the cluster. Live state (connected, last report) is kept in memory too. */
export const nodes = sqliteTable("nodes", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  labels: text("labels", { mode: "json" }).$type<Record<string, string>>().notNull(),
  /** sha256 of the node's credential; deleting the row revokes it. */
  credentialHash: text("credential_hash").notNull().unique(),
  /** No new replicas are placed on a cordoned node. */
  cordoned: integer("cordoned", { mode: "boolean" }).notNull(),
  /** Its replicas are to move elsewhere (the reconciler's job); implies cordoned. */
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
 * Company MCP servers behind /mcp. Credentials are never stored here: `headers` maps a header
 * name to the file its value is read from on every call, so a rotated file takes effect at once
 * and the store (and its backups) hold no secret.
 */
export const mcpServers = sqliteTable("mcp_servers", {
  name: text("name").primaryKey(),
  url: text("url").notNull(),
  /** Header name -> path of the file holding its value, JSON object. */
  headers: text("headers", { mode: "json" }).$type<Record<string, string>>().notNull(),
  /** Calls per minute per caller; null is unlimited. */
  rate: integer("rate"),
  /** The server narrowed to these of its tools (its own names, globs); null offers them all. */
  tools: text("tools", { mode: "json" }).$type<string[]>(),
  /**
   * `headers`: the header files above, one credential for everyone. `oauth`: each person
   * authorises once (MCP's authorization spec) and calls with their own token (mcp_person_tokens).
   */
  auth: text("auth", { enum: ["headers", "oauth"] }).notNull().default("headers"),
  /** The gateway's OAuth client at the server's authorization server, sealed (server/mcp/seal.ts). */
  oauthClient: text("oauth_client"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Each person's OAuth tokens for a company MCP server registered as `oauth`: access and refresh
 * token sealed together with the cluster secret (AES-GCM), so the store and its backups hold
 * no usable token.
 */
export const mcpPersonTokens = sqliteTable("mcp_person_tokens", {
  server: text("server").notNull().references(() => mcpServers.name, { onDelete: "cascade" }),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  sealed: text("sealed").notNull(),
  /** When the access token expires; null when the authorization server did not say. */
  expiresAt: integer("expires_at"),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [primaryKey({ columns: [t.server, t.userId] })]);

/** The MCP gateway's breaker per company server, one for every control plane. */
export const mcpBreakers = sqliteTable("mcp_breakers", {
  server: text("server").primaryKey(),
  /** Failures in a row. */
  failures: integer("failures").notNull(),
  /** Out until then (0: in). */
  openUntil: integer("open_until").notNull(),
});

/** MCP calls per caller, server and second, the last minute's: calls per minute across control planes. */
export const mcpCallCounts = sqliteTable("mcp_call_counts", {
  caller: text("caller").notNull(),
  server: text("server").notNull(),
  second: integer("second").notNull(),
  count: integer("count").notNull(),
}, (t) => [
  primaryKey({ columns: [t.caller, t.server, t.second] }),
  index("mcp_call_counts_second").on(t.second),
]);

/**
 * Guardrail policies: named, attached to one level of the tree; every level's policies on a
 * request's chain apply. `rules` is the zod-checked list (server/guard/policy.ts).
 */
export const guardPolicies = sqliteTable("guard_policies", {
  name: text("name").primaryKey(),
  scopeKind: text("scope_kind", { enum: ["global", "org", "team", "project", "person", "key"] })
    .notNull(),
  scopeId: text("scope_id").notNull(),
  applyTo: text("apply_to", { enum: ["input", "output", "both"] }).notNull(),
  restore: integer("restore", { mode: "boolean" }).notNull().default(false),
  /** A service that does not answer in time: the request allowed (open) or blocked (closed). */
  fail: text("fail", { enum: ["open", "closed"] }).notNull().default("open"),
  /** `buffer_all`: a streamed answer is held whole and checked before it is sent. */
  stream: text("stream", { enum: ["buffer_all"] }),
  rules: text("rules", { mode: "json" }).notNull().$type<unknown[]>(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Responses kept for /v1/responses (`store` not false): what the next turn's
 * `previous_response_id` continues, and what retrieve and input_items read. Per key: another
 * key's id is not found. Rows past `expires_at` are not served and are swept.
 */
export const storedResponses = sqliteTable("stored_responses", {
  id: text("id").primaryKey(),
  keyId: text("key_id").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  /** The Responses API's response object as it was sent. */
  response: text("response", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  /** This request's own input items, each with an id (input_items lists them). */
  input: text("input", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
  /** The conversation before this request's input: earlier turns' inputs and outputs. */
  context: text("context", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
  /**
   * A background response's lease: set while a control plane runs it (renewed as it runs),
   * cleared when it ends. Past it, the control plane running it is gone and the response failed.
   */
  leaseUntil: integer("lease_until"),
}, (t) => [index("stored_responses_expires").on(t.expiresAt)]);

/**
 * Files uploaded to /v1/files, owned by the key that sent them (another key's file is not
 * found); the bytes live under the data directory's files/, named by id.
 */
export const files = sqliteTable("files", {
  id: text("id").primaryKey(),
  keyId: text("key_id").notNull(),
  /** The key's project when it had one: the quota is per project, else per key. */
  projectId: text("project_id"),
  purpose: text("purpose").notNull(),
  filename: text("filename").notNull(),
  bytes: integer("bytes").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at"),
}, (t) => [index("files_key").on(t.keyId, t.createdAt), index("files_project").on(t.projectId)]);

/**
 * A file's bytes where the store is PostgreSQL, so every control plane reads them: chunks of
 * at most 1 MiB in order (server/files/file_store.ts says why chunks). On the embedded store the
 * bytes stay in the data directory's files/ and this table is empty.
 */
export const fileChunks = sqliteTable("file_chunks", {
  fileId: text("file_id").notNull().references(() => files.id, { onDelete: "cascade" }),
  seq: integer("seq").notNull(),
  bytes: blob("bytes", { mode: "buffer" }).notNull(),
}, (t) => [primaryKey({ columns: [t.fileId, t.seq] })]);

/**
 * Batches of /v1/batches. Progress is here, not in memory, so a restarted control plane goes on
 * where it stopped; each line's answer is a row of batch_lines, keyed by custom_id.
 */
export const batches = sqliteTable("batches", {
  id: text("id").primaryKey(),
  keyId: text("key_id").notNull(),
  endpoint: text("endpoint").notNull(),
  inputFileId: text("input_file_id").notNull(),
  completionWindow: text("completion_window").notNull(),
  /** validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled. */
  status: text("status").notNull(),
  outputFileId: text("output_file_id"),
  errorFileId: text("error_file_id"),
  /** Validation errors (OpenAI's `errors` object), as JSON. */
  errors: text("errors", { mode: "json" }).$type<Record<string, unknown>>(),
  metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
  total: integer("total").notNull().default(0),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  inProgressAt: integer("in_progress_at"),
  finalizingAt: integer("finalizing_at"),
  completedAt: integer("completed_at"),
  failedAt: integer("failed_at"),
  cancellingAt: integer("cancelling_at"),
  cancelledAt: integer("cancelled_at"),
  expiredAt: integer("expired_at"),
}, (t) => [index("batches_key").on(t.keyId, t.createdAt), index("batches_status").on(t.status)]);

/** One request line of a batch, its answer once it has one (null: not yet run). */
export const batchLines = sqliteTable(
  "batch_lines",
  {
    batchId: text("batch_id").notNull().references(() => batches.id, { onDelete: "cascade" }),
    customId: text("custom_id").notNull(),
    line: integer("line").notNull(),
    body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The answer's HTTP status; null until the line has run. */
    status: integer("status"),
    /** The answer's body (or the error), as JSON. */
    result: text("result", { mode: "json" }).$type<unknown>(),
    requestId: text("request_id"),
  },
  (
    t,
  ) => [
    primaryKey({ columns: [t.batchId, t.customId] }),
    index("batch_lines_todo").on(t.batchId, t.status),
  ],
);

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
  /** The running process's own id: two processes given one control id write different ones. */
  bootId: text("boot_id"),
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

/**
 * Knowledge bases (server/kb/): a collection belongs to a project (its keys search it) or, with
 * no project, to an organisation (all its projects' keys do). Its embedding model is fixed when it
 * is made: passages embedded by two models cannot be compared.
 */
export const kbCollections = sqliteTable("kb_collections", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  orgId: text("org_id").notNull().references(() => orgs.id),
  /** Null: the organisation's collection. */
  projectId: text("project_id").references(() => projects.id),
  embeddingModel: text("embedding_model").notNull(),
  /** The vectors' length, learnt from the first answer; a model that changes it is refused. */
  dims: integer("dims"),
  /** Words in a passage, and how many of them the next passage repeats. */
  passageWords: integer("passage_words").notNull(),
  overlapWords: integer("overlap_words").notNull(),
  /** The last import's failure, kept until a later import succeeds. */
  lastError: text("last_error"),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("kb_collections_org_project_name").on(t.orgId, t.projectId, t.name)]);

/** A document of a collection, by name: adding the same name again replaces its passages. */
export const kbDocuments = sqliteTable("kb_documents", {
  id: text("id").primaryKey(),
  collectionId: text("collection_id").notNull()
    .references(() => kbCollections.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  /** text, markdown, html or pdf: how it was read. */
  format: text("format").notNull(),
  bytes: integer("bytes").notNull(),
  /** importing, ready or failed. */
  status: text("status").notNull(),
  passages: integer("passages").notNull(),
  /** Passages embedded so far: the progress of an import. */
  embedded: integer("embedded").notNull(),
  error: text("error"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("kb_documents_collection_name").on(t.collectionId, t.name)]);

/**
 * A document's passages. `embedding` is the vector as JSON text, the one form both stores read
 * with their vector functions (libSQL's vector32(), pgvector's ::vector cast) and `store copy`
 * carries unchanged; the keyword index is each dialect's own (kb_fts in SQLite, kept by
 * triggers; an expression GIN index on to_tsvector in PostgreSQL).
 */
export const kbPassages = sqliteTable("kb_passages", {
  id: text("id").primaryKey(),
  collectionId: text("collection_id").notNull(),
  documentId: text("document_id").notNull()
    .references(() => kbDocuments.id, { onDelete: "cascade" }),
  seq: integer("seq").notNull(),
  /**
   * The passage's integer name in the keyword index (FTS5 addresses rows by integer): random,
   * so control planes writing at once never pick the same one.
   */
  rowKey: integer("row_key").notNull(),
  /** The heading the passage sits under, if the document has headings. */
  heading: text("heading"),
  text: text("text").notNull(),
  embedding: text("embedding"),
}, (t) => [
  index("kb_passages_collection").on(t.collectionId),
  uniqueIndex("kb_passages_row_key").on(t.rowKey),
  index("kb_passages_document").on(t.documentId, t.seq),
]);

/**
 * People bound to a directory by its stable id, not their name (a renamed account stays the same
 * person, a new one with an old name is not): LDAP's `entryUUID` or `objectGUID`, or the id SCIM
 * provisioned them under. `groups` is what the directory last said; `suspendedByDirectory` marks
 * a suspension the directory's sync made, the only kind it may lift again.
 */
export const userDirectory = sqliteTable("user_directory", {
  userId: text("user_id").primaryKey().references(() => users.id),
  source: text("source", { enum: ["ldap", "scim"] }).notNull(),
  externalId: text("external_id").notNull(),
  dn: text("dn"),
  groups: text("groups", { mode: "json" }).$type<string[]>().notNull(),
  suspendedByDirectory: integer("suspended_by_directory", { mode: "boolean" }).notNull()
    .default(false),
  syncedAt: integer("synced_at").notNull(),
}, (t) => [uniqueIndex("user_directory_source_external").on(t.source, t.externalId)]);

/** Groups an identity provider provisioned over SCIM; `members` are people's ids. */
export const scimGroups = sqliteTable("scim_groups", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull().unique(),
  externalId: text("external_id"),
  members: text("members", { mode: "json" }).$type<string[]>().notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** The bearer tokens an identity provider provisions with (`ctl scim token`), as sha256. */
export const scimTokens = sqliteTable("scim_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: integer("created_at").notNull(),
  revokedAt: integer("revoked_at"),
});
