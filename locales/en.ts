/** English: the reference locale. Every error code has a message; `{name}` marks a parameter. */
export const en = {
  errors: {
    invalid_json: "The request body is not valid JSON: {detail}",
    invalid_request: "The request is not valid: {detail}",
    body_too_large: "The request body is larger than the limit of {limit} bytes",
    missing_api_key: "No API key was given. Send it as 'Authorization: Bearer <key>'",
    invalid_api_key: "The API key is not valid, has expired or was revoked",
    unauthorized: "A valid admin token is required. Send it as 'Authorization: Bearer <token>'",
    forbidden: "You are not allowed to do this",
    not_found: "Nothing is found at {path}",
    model_not_found: "The model '{model}' does not exist or you do not have access to it",
    model_unavailable: "The model '{model}' has no replica that can answer right now",
    unsupported_endpoint: "The model '{model}' does not offer {endpoint}: {detail}",
    engine_error: "The engine serving '{model}' failed: {detail}",
    engine_stalled:
      "The engine serving '{model}' stopped sending for {seconds} s; the answer was cut",
    queue_timeout:
      "Every replica of '{model}' stayed busy until the request's wait ran out; try again shortly",
    provider_rate_limited:
      "Every key of the outside provider serving '{model}' is being rate-limited; try again shortly",
    conflict: "{detail}",
    internal_error: "An internal error occurred. The request id is {requestId}",
  },
} as const;
