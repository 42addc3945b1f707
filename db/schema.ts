/**
 * The store's schema. Times are Unix milliseconds; ids are ULIDs (sortable by creation).
 * Secrets are stored only as hashes.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { PinnedSource } from "../agent/weights/pinned_source.ts";

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
  /**
   * The weights as pinned when the model was added: the commit and every file's published
   * sha256 (agent/weights/pinned_source.ts). Null for models without fetched weights (sim).
   */
  origin: text("origin", { mode: "json" }).$type<PinnedSource>(),
  /** Pickle formats run code when loaded; only a model that says so may use them. */
  allowPickle: integer("allow_pickle", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

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
}, (t) => [index("usage_at").on(t.at), index("usage_key_at").on(t.keyId, t.at)]);

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
