/**
 * The store's schema. Times are Unix milliseconds; ids are ULIDs (sortable by creation).
 * Secrets are stored only as hashes.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  username: text("username").notNull().unique(),
  /** scrypt, self-describing: `scrypt$N$r$p$salt$hash` (base64url). */
  passwordHash: text("password_hash").notNull(),
  role: text("role", { enum: ["admin", "member"] }).notNull(),
  createdAt: integer("created_at").notNull(),
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
});

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
  /** Prices per 1,000 tokens, in micro-units of currency. A cached price of 0 means the prompt price. */
  pricePrompt: integer("price_prompt").notNull().default(0),
  pricePromptCached: integer("price_cached").notNull().default(0),
  priceCompletion: integer("price_completion").notNull().default(0),
  /** The name sent to the engine or provider instead of this one; null sends this name. */
  upstreamModel: text("upstream_model"),
  /**
   * For engine `external` (whose `source` is the provider's OpenAI base URL): the files holding
   * its keys, each its own endpoint with a share of requests. Never the keys themselves.
   */
  externalKeys: text("external_keys", { mode: "json" }).$type<ExternalKeyFile[]>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
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
 * Shards a node is meant to run (the desired state); re-sent to the agent on every connection so
 * a restarted agent adopts or restarts them. No secret: each shard's engine key is derived from
 * the cluster secret.
 */
export const nodeShards = sqliteTable("node_shards", {
  nodeId: text("node_id").notNull().references(() => nodes.id, { onDelete: "cascade" }),
  shardId: text("shard_id").primaryKey(),
  model: text("model").notNull(),
  engine: text("engine").notNull(),
  modelPath: text("model_path"),
  args: text("args", { mode: "json" }).$type<string[]>().notNull(),
  createdAt: integer("created_at").notNull(),
});

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
