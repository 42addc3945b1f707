/**
 * The closed list of error codes and the error that carries one. Both processes throw
 * `AppError`; only the control plane's `server/errors.ts` knows how a code maps to HTTP. The
 * codes double as message keys in `locales/`, which is why the message is looked up here.
 */
import { errorMessage } from "../locales/mod.ts";

export const errorCodes = [
  "invalid_json",
  "invalid_request",
  "body_too_large",
  "missing_api_key",
  "invalid_api_key",
  "unauthorized",
  "forbidden",
  "not_found",
  "model_not_found",
  "model_unavailable",
  "model_starting",
  "model_stopped",
  "unsupported_endpoint",
  "engine_error",
  "engine_stalled",
  // A key whose requests keep making an engine fail, held off the model for a while.
  "request_backoff",
  "queue_timeout",
  "provider_rate_limited",
  "conflict",
  "join_code_invalid",
  "join_code_used",
  "join_code_expired",
  "node_credential_invalid",
  "node_not_found",
  "node_not_connected",
  "internal_error",
  // people branch: tenancy, limits, sign-in
  "rate_limited",
  "tokens_rate_limited",
  "tokens_over_limit",
  "parallel_limited",
  "budget_exceeded",
  "too_many_unknown_keys",
  "too_many_attempts",
  "invalid_credentials",
  "csrf_failed",
  "sign_in_unavailable",
  // Weights (core/weights, agent/weights, server/weights): sources, pinning, fetching, the mirror.
  "weights_source_invalid",
  "weights_unresolvable",
  "weights_pickle_refused",
  "weights_checksum_mismatch",
  "weights_checksum_conflict",
  "weights_no_space",
  "weights_fetch_failed",
  "weights_not_local",
  // The MCP gateway (server/mcp): tools of company servers and the cluster's own.
  "mcp_tool_not_found",
  "mcp_server_unavailable",
  "mcp_call_failed",
  "mcp_authorization_needed",
  // Guardrails (server/guard): a policy's rule blocked the request or its answer.
  "guardrail_blocked",
  // A judge that did not answer in its budget, under a policy that fails closed.
  "guardrail_unavailable",
  // The store (db/): what llmgw leaves to PostgreSQL's own tools.
  "store_backup_external",
  // Knowledge bases (server/kb/): what the store or the embedding model cannot do for them.
  "kb_unavailable",
  "kb_import_failed",
  // SCIM provisioning (server/scim): a filter or PATCH path that does not parse.
  "scim_invalid_filter",
  "scim_invalid_path",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** A failure the caller can act on: a code from the list, the message's parameters, and the field at fault. */
export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: ErrorCode,
    readonly params: Record<string, string | number> = {},
    readonly param: string | null = null,
    /**
     * `retryAfterS`: when trying again may work, sent as `Retry-After`; `headers`: others the
     * refusal carries (a 429's `x-ratelimit-*`).
     */
    readonly hints: { retryAfterS?: number; headers?: Record<string, string> } = {},
  ) {
    super(errorMessage(code, params));
  }
}
