/** A failed key check as the error the client gets: 429 with `retry-after` when throttled, else 401. */
import { formatReset } from "../accounting/window.ts";
import { AppError } from "../../core/errors.ts";
import type { KeyCheck } from "./keys.ts";

export function keyRefusal(check: Exclude<KeyCheck, { ok: true }>): AppError {
  if (check.reason === "throttled") {
    return new AppError("too_many_unknown_keys", { reset: formatReset(check.retryAfterMs) }, null, {
      retryAfterS: Math.max(1, Math.ceil(check.retryAfterMs / 1000)),
    });
  }
  return new AppError("invalid_api_key");
}
