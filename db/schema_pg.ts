/**
 * The store's schema in PostgreSQL: db/schema.ts table for table, column for column (what each
 * column means is written there), and db/schema_agree_test.ts keeps the two in step. Its only use
 * is drizzle-kit's PostgreSQL migrations (db/migrations_pg/): the query code builds with the
 * SQLite tables on either dialect, so each column here stores its value as the SQLite one hands
 * it over: SQLite's 64-bit integer is `bigint`, a boolean is `boolean` (SQLite's 1/0 reads as
 * one), and JSON is kept as its text, byte for byte the same as in SQLite.
 */
import {
  bigint,
  boolean,
  customType,
  index,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import type { PinnedSource } from "../core/weights/pinned_source.ts";
import { type ExternalKeyFile, roles } from "./schema.ts";

/** SQLite's blob as PostgreSQL's bytea (postgres.js hands it over as a Buffer, as libSQL does). */
const bytea = customType<{ data: Uint8Array }>({ dataType: () => "bytea" });

export const orgs = pgTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

export const teams = pgTable("teams", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull().references(() => orgs.id),
  name: text("name").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
}, (t) => [uniqueIndex("teams_org_name").on(t.orgId, t.name)]);

export const projects = pgTable("projects", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull().references(() => orgs.id),
  teamId: text("team_id").notNull().references(() => teams.id),
  name: text("name").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
}, (t) => [uniqueIndex("projects_team_name").on(t.teamId, t.name)]);

export const users = pgTable("users", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: [...roles, "admin"] }).notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  email: text("email").unique(),
  displayName: text("display_name"),
  orgId: text("org_id").references(() => orgs.id),
  teamId: text("team_id").references(() => teams.id),
  state: text("state", { enum: ["active", "suspended"] }).notNull().default("active"),
  oidcSubject: text("oidc_subject").unique(),
});

export const adminTokens = pgTable("admin_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  revokedAt: bigint("revoked_at", { mode: "number" }),
});

export const apiKeys = pgTable("api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  prefix: text("prefix").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  userId: text("user_id").references(() => users.id),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }),
  revokedAt: bigint("revoked_at", { mode: "number" }),
  projectId: text("project_id").references(() => projects.id),
  lastUsedAt: bigint("last_used_at", { mode: "number" }),
});

export const limits = pgTable("limits", {
  scopeKind: text("scope_kind", { enum: ["global", "org", "team", "project", "person", "key"] })
    .notNull(),
  scopeId: text("scope_id").notNull(),
  rpm: bigint("rpm", { mode: "number" }),
  tpm: bigint("tpm", { mode: "number" }),
  budgetDayMicros: bigint("budget_day_micros", { mode: "number" }),
  budgetMonthMicros: bigint("budget_month_micros", { mode: "number" }),
  budgetDayTokens: bigint("budget_day_tokens", { mode: "number" }),
  budgetMonthTokens: bigint("budget_month_tokens", { mode: "number" }),
  models: text("models").$type<string[]>(),
  tools: text("tools").$type<string[]>(),
  maxKeyTtlMs: bigint("max_key_ttl_ms", { mode: "number" }),
  maxParallel: bigint("max_parallel", { mode: "number" }),
  weight: bigint("weight", { mode: "number" }),
  cache: boolean("cache"),
  cacheTemperature: boolean("cache_temperature"),
  cacheSimilarPermille: bigint("cache_similar_permille", { mode: "number" }),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.scopeKind, t.scopeId] })]);

export const budgetCounters = pgTable("budget_counters", {
  scopeKind: text("scope_kind").notNull(),
  scopeId: text("scope_id").notNull(),
  period: text("period", { enum: ["day", "month"] }).notNull(),
  periodStart: bigint("period_start", { mode: "number" }).notNull(),
  micros: bigint("micros", { mode: "number" }).notNull(),
  tokens: bigint("tokens", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.scopeKind, t.scopeId, t.period] })]);

export const sessions = pgTable("sessions", {
  id: text("id").primaryKey(),
  tokenHash: text("token_hash").notNull().unique(),
  userId: text("user_id").notNull().references(() => users.id),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  revokedAt: bigint("revoked_at", { mode: "number" }),
});

export const audit = pgTable("audit", {
  id: text("id").primaryKey(),
  at: bigint("at", { mode: "number" }).notNull(),
  actorKind: text("actor_kind", { enum: ["token", "session", "key", "system"] }).notNull(),
  actorId: text("actor_id").notNull(),
  actorName: text("actor_name").notNull(),
  action: text("action").notNull(),
  targetKind: text("target_kind").notNull(),
  targetId: text("target_id").notNull(),
  orgId: text("org_id"),
  before: text("before"),
  after: text("after"),
}, (t) => [index("audit_at").on(t.at)]);

export const models = pgTable("models", {
  name: text("name").primaryKey(),
  engine: text("engine").notNull(),
  source: text("source").notNull(),
  description: text("description"),
  args: text("args").$type<string[]>().notNull(),
  routingProfile: text("routing_profile"),
  fallbacks: text("fallbacks").$type<string[]>().notNull().default(sql`'[]'`),
  slots: bigint("slots", { mode: "number" }),
  upstreamModel: text("upstream_model"),
  externalKeys: text("external_keys").$type<ExternalKeyFile[]>(),
  origin: text("origin").$type<PinnedSource>(),
  allowPickle: boolean("allow_pickle").notNull().default(false),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  pricePrompt: bigint("price_prompt", { mode: "number" }),
  priceCompletion: bigint("price_completion", { mode: "number" }),
  priceCached: bigint("price_cached", { mode: "number" }),
  priceCacheHit: bigint("price_cache_hit", { mode: "number" }),
  priceBatchPercent: bigint("price_batch_percent", { mode: "number" }),
  def: text("def").$type<Record<string, unknown>>(),
  facts: text("facts").$type<Record<string, unknown>>(),
  declaredIn: text("declared_in"),
  stopped: boolean("stopped").notNull().default(false),
  /** The `judge` role: its guard-model family (core/judge_formats.ts); null: no judge. */
  judge: text("judge"),
});

export const usage = pgTable("usage", {
  id: text("id").primaryKey(),
  requestId: text("request_id").notNull(),
  at: bigint("at", { mode: "number" }).notNull(),
  keyId: text("key_id"),
  model: text("model").notNull(),
  endpoint: text("endpoint").notNull(),
  promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull(),
  completionTokens: bigint("completion_tokens", { mode: "number" }).notNull(),
  promptEstimated: boolean("prompt_estimated").notNull().default(false),
  status: bigint("status", { mode: "number" }).notNull(),
  latencyMs: bigint("latency_ms", { mode: "number" }).notNull(),
  ttftMs: bigint("ttft_ms", { mode: "number" }),
  stream: boolean("stream").notNull(),
  servedModel: text("served_model"),
  cachedTokens: bigint("cached_tokens", { mode: "number" }).notNull().default(0),
  costMicros: bigint("cost_micros", { mode: "number" }).notNull().default(0),
  queueMs: bigint("queue_ms", { mode: "number" }).notNull().default(0),
  replicaId: text("replica_id"),
  profile: text("profile"),
  guard: text("guard").$type<
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
  answerCache: text("answer_cache", { enum: ["exact", "similar"] }),
}, (t) => [index("usage_at").on(t.at), index("usage_key_at").on(t.keyId, t.at)]);

export const nodes = pgTable("nodes", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  labels: text("labels").$type<Record<string, string>>().notNull(),
  credentialHash: text("credential_hash").notNull().unique(),
  cordoned: boolean("cordoned").notNull(),
  draining: boolean("draining").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  lastHeardAt: bigint("last_heard_at", { mode: "number" }),
  version: text("version"),
  lastReport: text("last_report").$type<Record<string, unknown>>(),
});

export const joinCodes = pgTable("join_codes", {
  id: text("id").primaryKey(),
  secretHash: text("secret_hash").notNull().unique(),
  labels: text("labels").$type<Record<string, string>>().notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  usedAt: bigint("used_at", { mode: "number" }),
  nodeId: text("node_id"),
});

export const mirrorVersions = pgTable("mirror_versions", {
  id: text("id").primaryKey(),
  source: text("source").notNull(),
  versionDir: text("version_dir").notNull(),
  digest: text("digest").notNull(),
  pinned: text("pinned").$type<PinnedSource>().notNull(),
  status: text("status", { enum: ["fetching", "complete", "failed"] }).notNull(),
  bytesTotal: bigint("bytes_total", { mode: "number" }),
  error: text("error"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  completedAt: bigint("completed_at", { mode: "number" }),
}, (t) => [uniqueIndex("mirror_versions_version").on(t.versionDir, t.digest)]);

export const replicas = pgTable("replicas", {
  id: text("id").primaryKey(),
  nodeId: text("node_id").notNull().references(() => nodes.id, { onDelete: "cascade" }),
  model: text("model").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  profile: bigint("profile", { mode: "number" }),
  gpus: text("gpus").$type<number[]>(),
  perCardBytes: bigint("per_card_bytes", { mode: "number" }),
  ramBytes: bigint("ram_bytes", { mode: "number" }),
  cores: bigint("cores", { mode: "number" }),
  specHash: text("spec_hash"),
  state: text("state"),
  stateSince: bigint("state_since", { mode: "number" }),
  readyAt: bigint("ready_at", { mode: "number" }),
  reason: text("reason"),
  engine: text("engine"),
  modelPath: text("model_path"),
  args: text("args").$type<string[]>(),
  launch: text("launch").$type<Record<string, unknown>>(),
  desiredAt: bigint("desired_at", { mode: "number" }),
}, (t) => [index("replicas_model").on(t.model), index("replicas_node").on(t.nodeId)]);

export const usageDaily = pgTable("usage_daily", {
  day: text("day").notNull(),
  keyId: text("key_id").notNull(),
  model: text("model").notNull(),
  requests: bigint("requests", { mode: "number" }).notNull(),
  errors: bigint("errors", { mode: "number" }).notNull(),
  promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull(),
  cachedTokens: bigint("cached_tokens", { mode: "number" }).notNull(),
  completionTokens: bigint("completion_tokens", { mode: "number" }).notNull(),
  costMicros: bigint("cost_micros", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.day, t.keyId, t.model] })]);

export const clusterSettings = pgTable("cluster_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const portalPrefs = pgTable("portal_prefs", {
  userId: text("user_id").primaryKey().references(() => users.id),
  locale: text("locale"),
  timeZone: text("time_zone"),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const rateCounts = pgTable("rate_counts", {
  plane: text("plane").notNull(),
  name: text("name").notNull(),
  windowStart: bigint("window_start", { mode: "number" }).notNull(),
  count: bigint("count", { mode: "number" }).notNull(),
  reportedAt: bigint("reported_at", { mode: "number" }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.plane, t.name, t.windowStart] }),
  index("rate_counts_window").on(t.windowStart),
]);

export const budgetSlices = pgTable("budget_slices", {
  scopeKind: text("scope_kind").notNull(),
  scopeId: text("scope_id").notNull(),
  period: text("period", { enum: ["day", "month"] }).notNull(),
  periodStart: bigint("period_start", { mode: "number" }).notNull(),
  unit: text("unit", { enum: ["micros", "tokens"] }).notNull(),
  committed: bigint("committed", { mode: "number" }).notNull(),
  lastGrant: bigint("last_grant", { mode: "number" }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.scopeKind, t.scopeId, t.period, t.periodStart, t.unit] }),
]);

export const slotDemand = pgTable("slot_demand", {
  plane: text("plane").notNull(),
  replicaId: text("replica_id").notNull(),
  demand: bigint("demand", { mode: "number" }).notNull(),
  reportedAt: bigint("reported_at", { mode: "number" }).notNull(),
  granted: bigint("granted", { mode: "number" }),
  grantedAt: bigint("granted_at", { mode: "number" }),
}, (t) => [primaryKey({ columns: [t.plane, t.replicaId] })]);

export const sessionPlaces = pgTable("session_places", {
  sessionKey: bigint("session_key", { mode: "number" }).notNull(),
  replicaId: text("replica_id").notNull(),
  seenAt: bigint("seen_at", { mode: "number" }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.sessionKey] }),
  index("session_places_replica_seen").on(t.replicaId, t.seenAt),
]);

export const signInThrottles = pgTable("sign_in_throttles", {
  name: text("name").primaryKey(),
  count: bigint("count", { mode: "number" }).notNull(),
  lastAt: bigint("last_at", { mode: "number" }).notNull(),
}, (t) => [index("sign_in_throttles_last").on(t.lastAt)]);

export const mcpServers = pgTable("mcp_servers", {
  name: text("name").primaryKey(),
  url: text("url").notNull(),
  /** Header name -> path of the file holding its value, JSON object. */
  headers: text("headers").$type<Record<string, string>>().notNull(),
  /** Calls per minute per caller; null is unlimited. */
  rate: bigint("rate", { mode: "number" }),
  /** The server narrowed to these of its tools (its own names, globs); null offers them all. */
  tools: text("tools").$type<string[]>(),
  auth: text("auth", { enum: ["headers", "oauth"] }).notNull().default("headers"),
  oauthClient: text("oauth_client"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const mcpPersonTokens = pgTable("mcp_person_tokens", {
  server: text("server").notNull().references(() => mcpServers.name, { onDelete: "cascade" }),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  sealed: text("sealed").notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.server, t.userId] })]);

export const mcpBreakers = pgTable("mcp_breakers", {
  server: text("server").primaryKey(),
  failures: bigint("failures", { mode: "number" }).notNull(),
  openUntil: bigint("open_until", { mode: "number" }).notNull(),
});

export const mcpCallCounts = pgTable("mcp_call_counts", {
  caller: text("caller").notNull(),
  server: text("server").notNull(),
  second: bigint("second", { mode: "number" }).notNull(),
  count: bigint("count", { mode: "number" }).notNull(),
}, (t) => [
  primaryKey({ columns: [t.caller, t.server, t.second] }),
  index("mcp_call_counts_second").on(t.second),
]);

export const guardPolicies = pgTable("guard_policies", {
  name: text("name").primaryKey(),
  scopeKind: text("scope_kind", { enum: ["global", "org", "team", "project", "person", "key"] })
    .notNull(),
  scopeId: text("scope_id").notNull(),
  applyTo: text("apply_to", { enum: ["input", "output", "both"] }).notNull(),
  restore: boolean("restore").notNull().default(false),
  fail: text("fail", { enum: ["open", "closed"] }).notNull().default("open"),
  stream: text("stream", { enum: ["buffer_all"] }),
  rules: text("rules").notNull().$type<unknown[]>(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const storedResponses = pgTable("stored_responses", {
  id: text("id").primaryKey(),
  keyId: text("key_id").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  /** The Responses API's response object as it was sent. */
  response: text("response").$type<Record<string, unknown>>().notNull(),
  /** This request's own input items, each with an id (input_items lists them). */
  input: text("input").$type<Record<string, unknown>[]>().notNull(),
  /** The conversation before this request's input: earlier turns' inputs and outputs. */
  context: text("context").$type<Record<string, unknown>[]>().notNull(),
  /**
   * A background response's lease: set while a control plane runs it (renewed as it runs),
   * cleared when it ends. Past it, the control plane running it is gone and the response failed.
   */
  leaseUntil: bigint("lease_until", { mode: "number" }),
}, (t) => [index("stored_responses_expires").on(t.expiresAt)]);

export const files = pgTable("files", {
  id: text("id").primaryKey(),
  keyId: text("key_id").notNull(),
  /** The key's project when it had one: the quota is per project, else per key. */
  projectId: text("project_id"),
  purpose: text("purpose").notNull(),
  filename: text("filename").notNull(),
  bytes: bigint("bytes", { mode: "number" }).notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }),
}, (t) => [index("files_key").on(t.keyId, t.createdAt), index("files_project").on(t.projectId)]);

export const fileChunks = pgTable("file_chunks", {
  fileId: text("file_id").notNull().references(() => files.id, { onDelete: "cascade" }),
  seq: bigint("seq", { mode: "number" }).notNull(),
  bytes: bytea("bytes").notNull(),
}, (t) => [primaryKey({ columns: [t.fileId, t.seq] })]);

export const batches = pgTable("batches", {
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
  errors: text("errors").$type<Record<string, unknown>>(),
  metadata: text("metadata").$type<Record<string, unknown>>(),
  total: bigint("total", { mode: "number" }).notNull().default(0),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  inProgressAt: bigint("in_progress_at", { mode: "number" }),
  finalizingAt: bigint("finalizing_at", { mode: "number" }),
  completedAt: bigint("completed_at", { mode: "number" }),
  failedAt: bigint("failed_at", { mode: "number" }),
  cancellingAt: bigint("cancelling_at", { mode: "number" }),
  cancelledAt: bigint("cancelled_at", { mode: "number" }),
  expiredAt: bigint("expired_at", { mode: "number" }),
}, (t) => [index("batches_key").on(t.keyId, t.createdAt), index("batches_status").on(t.status)]);

export const batchLines = pgTable(
  "batch_lines",
  {
    batchId: text("batch_id").notNull().references(() => batches.id, { onDelete: "cascade" }),
    customId: text("custom_id").notNull(),
    line: bigint("line", { mode: "number" }).notNull(),
    body: text("body").$type<Record<string, unknown>>().notNull(),
    /** The answer's HTTP status; null until the line has run. */
    status: bigint("status", { mode: "number" }),
    /** The answer's body (or the error), as JSON. */
    result: text("result").$type<unknown>(),
    requestId: text("request_id"),
  },
  (
    t,
  ) => [
    primaryKey({ columns: [t.batchId, t.customId] }),
    index("batch_lines_todo").on(t.batchId, t.status),
  ],
);

export const controlLeases = pgTable("control_leases", {
  name: text("name").primaryKey(),
  holderId: text("holder_id").notNull(),
  /** Where the holder's client API answers (shown by `/leader`). */
  holderUrl: text("holder_url").notNull(),
  epoch: bigint("epoch", { mode: "number" }).notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
});

export const changeCounters = pgTable("change_counters", {
  topic: text("topic").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull(),
  changedAt: bigint("changed_at", { mode: "number" }).notNull(),
});

export const controlPlanes = pgTable("control_planes", {
  id: text("id").primaryKey(),
  /** Where its client API answers. */
  url: text("url").notNull(),
  /** The https URLs nodes dial. */
  clusterUrls: text("cluster_urls").$type<string[]>().notNull(),
  seenAt: bigint("seen_at", { mode: "number" }).notNull(),
  /** The running process's own id: two processes given one control id write different ones. */
  bootId: text("boot_id"),
});

export const routableReplicas = pgTable("routable_replicas", {
  id: text("id").primaryKey(),
  model: text("model").notNull(),
  baseUrl: text("base_url").notNull(),
  state: text("state").notNull(),
  slots: bigint("slots", { mode: "number" }),
  publishedAt: bigint("published_at", { mode: "number" }).notNull(),
});

export const replicaUse = pgTable("replica_use", {
  replicaId: text("replica_id").notNull(),
  controlId: text("control_id").notNull(),
  lastUsedAt: bigint("last_used_at", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.replicaId, t.controlId] })]);

export const modelDemand = pgTable("model_demand", {
  model: text("model").notNull(),
  controlId: text("control_id").notNull(),
  wantedAt: bigint("wanted_at", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.model, t.controlId] })]);

export const signInFlows = pgTable("sign_in_flows", {
  stateHash: text("state_hash").primaryKey(),
  verifier: text("verifier").notNull(),
  nonce: text("nonce").notNull(),
  expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
});

export const kbCollections = pgTable("kb_collections", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  orgId: text("org_id").notNull().references(() => orgs.id),
  projectId: text("project_id").references(() => projects.id),
  embeddingModel: text("embedding_model").notNull(),
  dims: bigint("dims", { mode: "number" }),
  passageWords: bigint("passage_words", { mode: "number" }).notNull(),
  overlapWords: bigint("overlap_words", { mode: "number" }).notNull(),
  lastError: text("last_error"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
}, (t) => [uniqueIndex("kb_collections_org_project_name").on(t.orgId, t.projectId, t.name)]);

export const kbDocuments = pgTable("kb_documents", {
  id: text("id").primaryKey(),
  collectionId: text("collection_id").notNull()
    .references(() => kbCollections.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  format: text("format").notNull(),
  bytes: bigint("bytes", { mode: "number" }).notNull(),
  status: text("status").notNull(),
  passages: bigint("passages", { mode: "number" }).notNull(),
  embedded: bigint("embedded", { mode: "number" }).notNull(),
  error: text("error"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
}, (t) => [uniqueIndex("kb_documents_collection_name").on(t.collectionId, t.name)]);

export const kbPassages = pgTable("kb_passages", {
  id: text("id").primaryKey(),
  collectionId: text("collection_id").notNull(),
  documentId: text("document_id").notNull()
    .references(() => kbDocuments.id, { onDelete: "cascade" }),
  seq: bigint("seq", { mode: "number" }).notNull(),
  rowKey: bigint("row_key", { mode: "number" }).notNull(),
  heading: text("heading"),
  text: text("text").notNull(),
  embedding: text("embedding"),
}, (t) => [
  index("kb_passages_collection").on(t.collectionId),
  uniqueIndex("kb_passages_row_key").on(t.rowKey),
  index("kb_passages_document").on(t.documentId, t.seq),
]);
export const userDirectory = pgTable("user_directory", {
  userId: text("user_id").primaryKey().references(() => users.id),
  source: text("source", { enum: ["ldap", "scim"] }).notNull(),
  externalId: text("external_id").notNull(),
  dn: text("dn"),
  groups: text("groups").$type<string[]>().notNull(),
  suspendedByDirectory: boolean("suspended_by_directory").notNull().default(false),
  syncedAt: bigint("synced_at", { mode: "number" }).notNull(),
}, (t) => [uniqueIndex("user_directory_source_external").on(t.source, t.externalId)]);

export const scimGroups = pgTable("scim_groups", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull().unique(),
  externalId: text("external_id"),
  members: text("members").$type<string[]>().notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
});

export const scimTokens = pgTable("scim_tokens", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  revokedAt: bigint("revoked_at", { mode: "number" }),
});
