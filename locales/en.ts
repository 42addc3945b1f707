import { portalEn } from "./portal_en.ts";

/** English: the reference locale. Every error code has a message; `{name}` marks a parameter. */
export const en = {
  errors: {
    invalid_json: "The request body is not valid JSON: {detail}",
    invalid_request: "The request is not valid: {detail}",
    body_too_large: "The request body is larger than the limit of {limit} bytes",
    missing_api_key: "No API key was given. Send it as 'Authorization: Bearer <key>'",
    invalid_api_key: "The API key is not valid, has expired or was revoked",
    unauthorized:
      "A valid session, API key or admin token is required. Send a key or token as 'Authorization: Bearer <token>'",
    forbidden: "You are not allowed to do this",
    not_found: "Nothing is found at {path}",
    model_not_found: "The model '{model}' does not exist or you do not have access to it",
    model_unavailable: "The model '{model}' has no replica that can answer right now",
    model_starting: "The model '{model}' is not ready yet ({phase}); try again shortly",
    model_stopped:
      "The model '{model}' was stopped by an administrator; ask them to start it again",
    unsupported_endpoint: "The model '{model}' does not offer {endpoint}: {detail}",
    engine_error: "The engine serving '{model}' failed: {detail}",
    engine_stalled:
      "The engine serving '{model}' stopped sending for {seconds} s; the answer was cut",
    request_backoff:
      "This key's last {count} requests to '{model}' made its engine fail ({detail}); it is held off the model for {reset}: fix the request before trying again",
    queue_timeout:
      "Every replica of '{model}' stayed busy until the request's wait ran out; try again shortly",
    provider_rate_limited:
      "Every key of the outside provider serving '{model}' is being rate-limited; try again shortly",
    conflict: "{detail}",
    join_code_invalid:
      "This join code is not known to this cluster; make a new one with 'llmgw ctl nodes join-code'",
    join_code_used:
      "This join code was already used; make a new one with 'llmgw ctl nodes join-code'",
    join_code_expired: "This join code expired; make a new one with 'llmgw ctl nodes join-code'",
    node_credential_invalid:
      "The node's credential is not valid: the node was removed or never joined. Join it again with a new code",
    node_not_found: "There is no node '{node}'",
    node_not_connected: "The node '{node}' is not connected",
    rate_limited:
      "Rate limit reached: {limit} at the {level} level ({used} of {max}). It resets in {reset}",
    tokens_rate_limited:
      "Rate limit reached: tokens per minute at the {level} level ({used} of {max}; this request may use {need}). It resets in {reset}",
    parallel_limited:
      "Too many requests in flight: {max} at a time to '{model}' at the {level} level ({used} running). Try again when one ends",
    tokens_over_limit:
      "This request may use {need} tokens (a prompt of about {prompt} and up to {output} of answer), more than the tokens-per-minute limit of {max} at the {level} level, so it could never be admitted: send max_tokens of at most {fit}, or a shorter prompt",
    budget_exceeded:
      "Budget reached: the {period} budget of the {level} level ({spent} spent and {held} held for requests in flight, of {max} {unit}; this request may need {need}, less with a smaller max_tokens). It resets at {reset}",
    too_many_unknown_keys: "Too many unrecognised API keys from this address. Try again in {reset}",
    too_many_attempts: "Too many sign-in attempts. Try again in {reset}",
    invalid_credentials: "The email or password is not right",
    csrf_failed: "The form's CSRF token is missing or wrong: reload the page and try again",
    sign_in_unavailable: "Sign-in through {provider} is unavailable: {reason}",
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
    mcp_tool_not_found: "No tool '{tool}' is offered to this key",
    mcp_server_unavailable:
      "The MCP server '{server}' is out after repeated failures; try again in {retry} s",
    mcp_call_failed: "The tool '{tool}' failed: {detail}",
    mcp_authorization_needed:
      "The MCP server '{server}' acts for each person with their own account: authorise it once at {url}, then call again",
    guardrail_unavailable:
      "The guardrail policy '{policy}' could not check this request in time (rule '{rule}'), and it refuses what it cannot check; try again shortly",
    guardrail_blocked:
      "The guardrail policy '{policy}' blocked this request (rule '{rule}'); ask an administrator if it should not have",
    store_backup_external:
      "The store is PostgreSQL ({store}): back it up with pg_dump or the server's own backups",
    kb_unavailable: "Knowledge bases are unavailable here: {detail}",
    kb_import_failed: "The document '{document}' could not be imported: {detail}",
    scim_invalid_filter: "The SCIM filter is not valid: {detail}",
    scim_invalid_path: "The SCIM path is not valid: {detail}",
  },
  portal: portalEn,
} as const;
