/**
 * Anthropic's error envelope, for the /v1/messages path: the same failures and HTTP statuses as
 * OpenAI's envelope elsewhere, in the shape Anthropic's SDKs read (`error.type` picks the class).
 */

export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "overloaded_error";

export interface AnthropicErrorBody {
  type: "error";
  error: { type: AnthropicErrorType; message: string };
  request_id?: string;
}

/** Anthropic names its error types by status; the status stays what llmgw would send anyway. */
export function anthropicErrorType(status: number): AnthropicErrorType {
  switch (status) {
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
  }
  return status >= 500 ? "api_error" : "invalid_request_error";
}

export function anthropicErrorBody(
  status: number,
  message: string,
  requestId?: string,
): AnthropicErrorBody {
  return {
    type: "error",
    error: { type: anthropicErrorType(status), message },
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/** The paths whose callers speak Anthropic's dialect, errors included. */
export function isAnthropicPath(path: string): boolean {
  return path === "/v1/messages" || path.startsWith("/v1/messages/");
}
