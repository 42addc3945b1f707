CREATE TABLE "admin_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "admin_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"user_id" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint,
	"revoked_at" bigint,
	"project_id" text,
	"last_used_at" bigint,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "audit" (
	"id" text PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_name" text NOT NULL,
	"action" text NOT NULL,
	"target_kind" text NOT NULL,
	"target_id" text NOT NULL,
	"org_id" text,
	"before" text,
	"after" text
);
--> statement-breakpoint
CREATE TABLE "batch_lines" (
	"batch_id" text NOT NULL,
	"custom_id" text NOT NULL,
	"line" bigint NOT NULL,
	"body" text NOT NULL,
	"status" bigint,
	"result" text,
	"request_id" text,
	CONSTRAINT "batch_lines_batch_id_custom_id_pk" PRIMARY KEY("batch_id","custom_id")
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"endpoint" text NOT NULL,
	"input_file_id" text NOT NULL,
	"completion_window" text NOT NULL,
	"status" text NOT NULL,
	"output_file_id" text,
	"error_file_id" text,
	"errors" text,
	"metadata" text,
	"total" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"in_progress_at" bigint,
	"finalizing_at" bigint,
	"completed_at" bigint,
	"failed_at" bigint,
	"cancelling_at" bigint,
	"cancelled_at" bigint,
	"expired_at" bigint
);
--> statement-breakpoint
CREATE TABLE "budget_counters" (
	"scope_kind" text NOT NULL,
	"scope_id" text NOT NULL,
	"period" text NOT NULL,
	"period_start" bigint NOT NULL,
	"micros" bigint NOT NULL,
	"tokens" bigint NOT NULL,
	CONSTRAINT "budget_counters_scope_kind_scope_id_period_pk" PRIMARY KEY("scope_kind","scope_id","period")
);
--> statement-breakpoint
CREATE TABLE "budget_slices" (
	"scope_kind" text NOT NULL,
	"scope_id" text NOT NULL,
	"period" text NOT NULL,
	"period_start" bigint NOT NULL,
	"unit" text NOT NULL,
	"committed" bigint NOT NULL,
	"last_grant" bigint NOT NULL,
	CONSTRAINT "budget_slices_scope_kind_scope_id_period_period_start_unit_pk" PRIMARY KEY("scope_kind","scope_id","period","period_start","unit")
);
--> statement-breakpoint
CREATE TABLE "change_counters" (
	"topic" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL,
	"changed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "control_leases" (
	"name" text PRIMARY KEY NOT NULL,
	"holder_id" text NOT NULL,
	"holder_url" text NOT NULL,
	"epoch" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "control_planes" (
	"id" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"cluster_urls" text NOT NULL,
	"seen_at" bigint NOT NULL,
	"boot_id" text
);
--> statement-breakpoint
CREATE TABLE "file_chunks" (
	"file_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "file_chunks_file_id_seq_pk" PRIMARY KEY("file_id","seq")
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"project_id" text,
	"purpose" text NOT NULL,
	"filename" text NOT NULL,
	"bytes" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint
);
--> statement-breakpoint
CREATE TABLE "guard_policies" (
	"name" text PRIMARY KEY NOT NULL,
	"scope_kind" text NOT NULL,
	"scope_id" text NOT NULL,
	"apply_to" text NOT NULL,
	"restore" boolean DEFAULT false NOT NULL,
	"fail" text DEFAULT 'open' NOT NULL,
	"stream" text,
	"rules" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "join_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"labels" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"node_id" text,
	CONSTRAINT "join_codes_secret_hash_unique" UNIQUE("secret_hash")
);
--> statement-breakpoint
CREATE TABLE "kb_collections" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"org_id" text NOT NULL,
	"project_id" text,
	"embedding_model" text NOT NULL,
	"dims" bigint,
	"passage_words" bigint NOT NULL,
	"overlap_words" bigint NOT NULL,
	"last_error" text,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_documents" (
	"id" text PRIMARY KEY NOT NULL,
	"collection_id" text NOT NULL,
	"name" text NOT NULL,
	"format" text NOT NULL,
	"bytes" bigint NOT NULL,
	"status" text NOT NULL,
	"passages" bigint NOT NULL,
	"embedded" bigint NOT NULL,
	"error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "kb_passages" (
	"id" text PRIMARY KEY NOT NULL,
	"collection_id" text NOT NULL,
	"document_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"row_key" bigint NOT NULL,
	"heading" text,
	"text" text NOT NULL,
	"embedding" text
);
--> statement-breakpoint
CREATE TABLE "limits" (
	"scope_kind" text NOT NULL,
	"scope_id" text NOT NULL,
	"rpm" bigint,
	"tpm" bigint,
	"budget_day_micros" bigint,
	"budget_month_micros" bigint,
	"budget_day_tokens" bigint,
	"budget_month_tokens" bigint,
	"models" text,
	"tools" text,
	"max_key_ttl_ms" bigint,
	"max_parallel" bigint,
	"weight" bigint,
	"cache" boolean,
	"cache_temperature" boolean,
	"cache_similar_permille" bigint,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "limits_scope_kind_scope_id_pk" PRIMARY KEY("scope_kind","scope_id")
);
--> statement-breakpoint
CREATE TABLE "mcp_breakers" (
	"server" text PRIMARY KEY NOT NULL,
	"failures" bigint NOT NULL,
	"open_until" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mcp_call_counts" (
	"caller" text NOT NULL,
	"server" text NOT NULL,
	"second" bigint NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "mcp_call_counts_caller_server_second_pk" PRIMARY KEY("caller","server","second")
);
--> statement-breakpoint
CREATE TABLE "mcp_person_tokens" (
	"server" text NOT NULL,
	"user_id" text NOT NULL,
	"sealed" text NOT NULL,
	"expires_at" bigint,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "mcp_person_tokens_server_user_id_pk" PRIMARY KEY("server","user_id")
);
--> statement-breakpoint
CREATE TABLE "mcp_servers" (
	"name" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"headers" text NOT NULL,
	"rate" bigint,
	"tools" text,
	"auth" text DEFAULT 'headers' NOT NULL,
	"oauth_client" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mirror_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"version_dir" text NOT NULL,
	"digest" text NOT NULL,
	"pinned" text NOT NULL,
	"status" text NOT NULL,
	"bytes_total" bigint,
	"error" text,
	"created_at" bigint NOT NULL,
	"completed_at" bigint
);
--> statement-breakpoint
CREATE TABLE "model_demand" (
	"model" text NOT NULL,
	"control_id" text NOT NULL,
	"wanted_at" bigint NOT NULL,
	CONSTRAINT "model_demand_model_control_id_pk" PRIMARY KEY("model","control_id")
);
--> statement-breakpoint
CREATE TABLE "models" (
	"name" text PRIMARY KEY NOT NULL,
	"engine" text NOT NULL,
	"source" text NOT NULL,
	"description" text,
	"args" text NOT NULL,
	"routing_profile" text,
	"fallbacks" text DEFAULT '[]' NOT NULL,
	"slots" bigint,
	"upstream_model" text,
	"external_keys" text,
	"origin" text,
	"allow_pickle" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"price_prompt" bigint,
	"price_completion" bigint,
	"price_cached" bigint,
	"price_cache_hit" bigint,
	"price_batch_percent" bigint,
	"def" text,
	"facts" text,
	"declared_in" text,
	"stopped" boolean DEFAULT false NOT NULL,
	"judge" text
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"labels" text NOT NULL,
	"credential_hash" text NOT NULL,
	"cordoned" boolean NOT NULL,
	"draining" boolean NOT NULL,
	"created_at" bigint NOT NULL,
	"last_heard_at" bigint,
	"version" text,
	"last_report" text,
	CONSTRAINT "nodes_credential_hash_unique" UNIQUE("credential_hash")
);
--> statement-breakpoint
CREATE TABLE "orgs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "orgs_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "portal_prefs" (
	"user_id" text PRIMARY KEY NOT NULL,
	"locale" text,
	"time_zone" text,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"team_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_counts" (
	"plane" text NOT NULL,
	"name" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" bigint NOT NULL,
	"reported_at" bigint NOT NULL,
	CONSTRAINT "rate_counts_plane_name_window_start_pk" PRIMARY KEY("plane","name","window_start")
);
--> statement-breakpoint
CREATE TABLE "replica_use" (
	"replica_id" text NOT NULL,
	"control_id" text NOT NULL,
	"last_used_at" bigint NOT NULL,
	CONSTRAINT "replica_use_replica_id_control_id_pk" PRIMARY KEY("replica_id","control_id")
);
--> statement-breakpoint
CREATE TABLE "replicas" (
	"id" text PRIMARY KEY NOT NULL,
	"node_id" text NOT NULL,
	"model" text NOT NULL,
	"created_at" bigint NOT NULL,
	"profile" bigint,
	"gpus" text,
	"per_card_bytes" bigint,
	"ram_bytes" bigint,
	"cores" bigint,
	"spec_hash" text,
	"state" text,
	"state_since" bigint,
	"ready_at" bigint,
	"reason" text,
	"engine" text,
	"model_path" text,
	"args" text,
	"launch" text,
	"desired_at" bigint
);
--> statement-breakpoint
CREATE TABLE "routable_replicas" (
	"id" text PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"base_url" text NOT NULL,
	"state" text NOT NULL,
	"slots" bigint,
	"published_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scim_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"external_id" text,
	"members" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "scim_groups_display_name_unique" UNIQUE("display_name")
);
--> statement-breakpoint
CREATE TABLE "scim_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "scim_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "session_places" (
	"session_key" bigint NOT NULL,
	"replica_id" text NOT NULL,
	"seen_at" bigint NOT NULL,
	CONSTRAINT "session_places_session_key_pk" PRIMARY KEY("session_key")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "sign_in_flows" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"verifier" text NOT NULL,
	"nonce" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sign_in_throttles" (
	"name" text PRIMARY KEY NOT NULL,
	"count" bigint NOT NULL,
	"last_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "slot_demand" (
	"plane" text NOT NULL,
	"replica_id" text NOT NULL,
	"demand" bigint NOT NULL,
	"reported_at" bigint NOT NULL,
	"granted" bigint,
	"granted_at" bigint,
	CONSTRAINT "slot_demand_plane_replica_id_pk" PRIMARY KEY("plane","replica_id")
);
--> statement-breakpoint
CREATE TABLE "stored_responses" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"response" text NOT NULL,
	"input" text NOT NULL,
	"context" text NOT NULL,
	"lease_until" bigint
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage" (
	"id" text PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"at" bigint NOT NULL,
	"key_id" text,
	"model" text NOT NULL,
	"endpoint" text NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"prompt_estimated" boolean DEFAULT false NOT NULL,
	"status" bigint NOT NULL,
	"latency_ms" bigint NOT NULL,
	"ttft_ms" bigint,
	"stream" boolean NOT NULL,
	"served_model" text,
	"cached_tokens" bigint DEFAULT 0 NOT NULL,
	"cost_micros" bigint DEFAULT 0 NOT NULL,
	"queue_ms" bigint DEFAULT 0 NOT NULL,
	"replica_id" text,
	"profile" text,
	"guard" text,
	"answer_cache" text
);
--> statement-breakpoint
CREATE TABLE "usage_daily" (
	"day" text NOT NULL,
	"key_id" text NOT NULL,
	"model" text NOT NULL,
	"requests" bigint NOT NULL,
	"errors" bigint NOT NULL,
	"prompt_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"completion_tokens" bigint NOT NULL,
	"cost_micros" bigint NOT NULL,
	CONSTRAINT "usage_daily_day_key_id_model_pk" PRIMARY KEY("day","key_id","model")
);
--> statement-breakpoint
CREATE TABLE "user_directory" (
	"user_id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"external_id" text NOT NULL,
	"dn" text,
	"groups" text NOT NULL,
	"suspended_by_directory" boolean DEFAULT false NOT NULL,
	"synced_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"created_at" bigint NOT NULL,
	"email" text,
	"display_name" text,
	"org_id" text,
	"team_id" text,
	"state" text DEFAULT 'active' NOT NULL,
	"oidc_subject" text,
	CONSTRAINT "users_username_unique" UNIQUE("username"),
	CONSTRAINT "users_email_unique" UNIQUE("email"),
	CONSTRAINT "users_oidc_subject_unique" UNIQUE("oidc_subject")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "batch_lines" ADD CONSTRAINT "batch_lines_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "file_chunks" ADD CONSTRAINT "file_chunks_file_id_files_id_fk" FOREIGN KEY ("file_id") REFERENCES "public"."files"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_collections" ADD CONSTRAINT "kb_collections_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_collections" ADD CONSTRAINT "kb_collections_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_documents" ADD CONSTRAINT "kb_documents_collection_id_kb_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."kb_collections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "kb_passages" ADD CONSTRAINT "kb_passages_document_id_kb_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."kb_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_person_tokens" ADD CONSTRAINT "mcp_person_tokens_server_mcp_servers_name_fk" FOREIGN KEY ("server") REFERENCES "public"."mcp_servers"("name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mcp_person_tokens" ADD CONSTRAINT "mcp_person_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portal_prefs" ADD CONSTRAINT "portal_prefs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "replicas" ADD CONSTRAINT "replicas_node_id_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_directory" ADD CONSTRAINT "user_directory_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_at" ON "audit" USING btree ("at");--> statement-breakpoint
CREATE INDEX "batch_lines_todo" ON "batch_lines" USING btree ("batch_id","status");--> statement-breakpoint
CREATE INDEX "batches_key" ON "batches" USING btree ("key_id","created_at");--> statement-breakpoint
CREATE INDEX "batches_status" ON "batches" USING btree ("status");--> statement-breakpoint
CREATE INDEX "files_key" ON "files" USING btree ("key_id","created_at");--> statement-breakpoint
CREATE INDEX "files_project" ON "files" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "kb_collections_org_project_name" ON "kb_collections" USING btree ("org_id","project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "kb_documents_collection_name" ON "kb_documents" USING btree ("collection_id","name");--> statement-breakpoint
CREATE INDEX "kb_passages_collection" ON "kb_passages" USING btree ("collection_id");--> statement-breakpoint
CREATE UNIQUE INDEX "kb_passages_row_key" ON "kb_passages" USING btree ("row_key");--> statement-breakpoint
CREATE INDEX "kb_passages_document" ON "kb_passages" USING btree ("document_id","seq");--> statement-breakpoint
CREATE INDEX "mcp_call_counts_second" ON "mcp_call_counts" USING btree ("second");--> statement-breakpoint
CREATE UNIQUE INDEX "mirror_versions_version" ON "mirror_versions" USING btree ("version_dir","digest");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_team_name" ON "projects" USING btree ("team_id","name");--> statement-breakpoint
CREATE INDEX "rate_counts_window" ON "rate_counts" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "replicas_model" ON "replicas" USING btree ("model");--> statement-breakpoint
CREATE INDEX "replicas_node" ON "replicas" USING btree ("node_id");--> statement-breakpoint
CREATE INDEX "session_places_replica_seen" ON "session_places" USING btree ("replica_id","seen_at");--> statement-breakpoint
CREATE INDEX "sign_in_throttles_last" ON "sign_in_throttles" USING btree ("last_at");--> statement-breakpoint
CREATE INDEX "stored_responses_expires" ON "stored_responses" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "teams_org_name" ON "teams" USING btree ("org_id","name");--> statement-breakpoint
CREATE INDEX "usage_at" ON "usage" USING btree ("at");--> statement-breakpoint
CREATE INDEX "usage_key_at" ON "usage" USING btree ("key_id","at");--> statement-breakpoint
CREATE UNIQUE INDEX "user_directory_source_external" ON "user_directory" USING btree ("source","external_id");--> statement-breakpoint
-- Written by hand after drizzle-kit's part (keep it when regenerating): the passages' keyword
-- index, an expression index so the table keeps only the columns of schema_pg.ts.
CREATE INDEX "kb_passages_words" ON "kb_passages" USING gin (to_tsvector('english', coalesce("heading", '') || ' ' || "text"));
