/**
 * Each error code's HTTP status, and the one envelope every error is sent in. Services throw
 * `AppError` (core/errors.ts) with a code; only `onError` here knows about HTTP. The
 * envelope is OpenAI's, so SDKs show our message, with the request id added; on Anthropic's
 * path (/v1/messages) the same error goes out in Anthropic's envelope instead.
 */
import type { Context } from "hono";
import { AppError, type ErrorCode } from "../core/errors.ts";
import type { Logger } from "../core/log.ts";
import { anthropicErrorBody, isAnthropicPath } from "./anthropic/error_body.ts";
import { isScimPath, scimErrorBody } from "./scim/scim_error.ts";

type OpenAIErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "server_error"
  | "requests"
  | "tokens"
  | "insufficient_quota";

export function statusOf(
  code: ErrorCode,
): {
  status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503 | 504 | 507;
  type: OpenAIErrorType;
} {
  switch (code) {
    case "invalid_json":
    case "invalid_request":
    case "tokens_over_limit":
    case "unsupported_endpoint":
    case "weights_source_invalid":
    case "weights_unresolvable":
    case "weights_pickle_refused":
    case "weights_not_local":
    case "guardrail_blocked":
    case "kb_import_failed":
    case "scim_invalid_filter":
    case "scim_invalid_path":
      return { status: 400, type: "invalid_request_error" };
    case "body_too_large":
      return { status: 413, type: "invalid_request_error" };
    case "missing_api_key":
    case "invalid_api_key":
    case "unauthorized":
    case "join_code_invalid":
    case "join_code_used":
    case "join_code_expired":
    case "node_credential_invalid":
    case "invalid_credentials":
      return { status: 401, type: "authentication_error" };
    case "forbidden":
    case "csrf_failed":
    case "mcp_authorization_needed":
      return { status: 403, type: "permission_error" };
    case "not_found":
    case "model_not_found":
    case "mcp_tool_not_found":
    case "node_not_found":
      return { status: 404, type: "not_found_error" };
    case "conflict":
    case "weights_checksum_conflict":
    case "store_backup_external":
      return { status: 409, type: "invalid_request_error" };
    case "engine_error":
    case "mcp_call_failed":
    case "weights_checksum_mismatch":
    case "weights_fetch_failed":
      return { status: 502, type: "server_error" };
    case "model_unavailable":
    case "model_starting":
    case "model_stopped":
    case "queue_timeout":
    case "node_not_connected":
    case "sign_in_unavailable":
    case "kb_unavailable":
    case "mcp_server_unavailable":
    case "guardrail_unavailable":
      return { status: 503, type: "server_error" };
    case "provider_rate_limited":
      return { status: 429, type: "rate_limit_error" };
    case "rate_limited":
    case "parallel_limited":
    case "request_backoff":
    case "too_many_unknown_keys":
    case "too_many_attempts":
      return { status: 429, type: "requests" };
    case "tokens_rate_limited":
      return { status: 429, type: "tokens" };
    case "budget_exceeded":
      return { status: 429, type: "insufficient_quota" };
    case "engine_stalled":
      return { status: 504, type: "server_error" };
    case "internal_error":
      return { status: 500, type: "server_error" };
    case "weights_no_space":
      return { status: 507, type: "server_error" };
  }
}

export interface ErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: ErrorCode;
    request_id?: string;
  };
}

/** The one envelope; `message` replaces the English text where the caller reads another language. */
export function errorBody(err: AppError, requestId?: string, message = err.message): ErrorBody {
  return {
    error: {
      message,
      type: statusOf(err.code).type,
      param: err.param,
      code: err.code,
      ...(requestId ? { request_id: requestId } : {}),
    },
  };
}

export function errorResponse(err: AppError, requestId?: string, message?: string): Response {
  return withHints(
    Response.json(errorBody(err, requestId, message), { status: statusOf(err.code).status }),
    err,
  );
}

function withHints(res: Response, err: AppError): Response {
  for (const [k, v] of Object.entries(err.hints.headers ?? {})) res.headers.set(k, v);
  if (err.hints.retryAfterS !== undefined) {
    res.headers.set("retry-after", String(err.hints.retryAfterS));
  }
  return res;
}

/**
 * One error, in the envelope of the API the path belongs to: Anthropic's on /v1/messages, SCIM's
 * under /scim/v2.
 */
export function errorResponseFor(path: string, err: AppError, requestId?: string): Response {
  if (isScimPath(path)) {
    const { status } = statusOf(err.code);
    return withHints(
      new Response(JSON.stringify(scimErrorBody(err.code, status, err.message)), {
        status,
        headers: { "content-type": "application/scim+json" },
      }),
      err,
    );
  }
  if (!isAnthropicPath(path)) return errorResponse(err, requestId);
  const { status } = statusOf(err.code);
  return withHints(
    Response.json(anthropicErrorBody(status, err.message, requestId), { status }),
    err,
  );
}

/** The app's single error handler. Unknown errors become a generic 500; details go to the log only. */
export function makeOnError(logger: Logger) {
  return (err: Error, c: Context): Response => {
    const requestId = c.get("requestId" as never) as string | undefined;
    if (err instanceof AppError) return errorResponseFor(c.req.path, err, requestId);
    logger.error("unhandled error", { requestId, path: c.req.path, error: err, stack: err.stack });
    return errorResponseFor(
      c.req.path,
      new AppError("internal_error", { requestId: requestId ?? "unknown" }),
      requestId,
    );
  };
}
