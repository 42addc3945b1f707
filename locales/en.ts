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
    engine_error: "The engine serving '{model}' failed: {detail}",
    conflict: "{detail}",
    internal_error: "An internal error occurred. The request id is {requestId}",
    weights_source_invalid: "The weights source '{source}' is not valid: {detail}",
    weights_unresolvable: "The weights source '{source}' cannot be resolved: {detail}",
    weights_pickle_refused:
      "Weights in a pickle format run code when they are loaded: {file} is refused. Use the model's safetensors or GGUF, or set allow_pickle: true on the model if it was checked and has no other form",
    weights_checksum_mismatch:
      "{file} arrived with sha256 {actual}, but {publisher} published {expected} for it: refused and deleted",
    weights_checksum_conflict:
      "{file} on this node was checked earlier as sha256 {actual}, but this source expects {expected}: refused (the file is kept; another model may use it)",
    weights_no_space: "Fetching {source} needs {needed} more on {dir}, but only {free} is free",
    weights_fetch_failed: "Fetching {file} failed: {detail}",
    weights_not_local: "The weights at {path} are not on this node",
  },
} as const;
