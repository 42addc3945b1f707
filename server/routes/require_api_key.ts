/**
 * Client API key check for routes mounted beside /v1's own (Anthropic's /v1/messages, /rerank).
 * A request the /v1 middleware already admitted is not checked twice.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app_env.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import type { KeyService } from "../keys/keys.ts";
import { AppError } from "../../core/errors.ts";

export function requireApiKey(
  deps: { keys: Pick<KeyService, "check"> },
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!c.get("apiKey")) {
      // Bearer or x-api-key (Anthropic's clients); anthropic-version and the like are ignored.
      const presented = bearerToken(c.req.raw);
      if (!presented) throw new AppError("missing_api_key");
      const check = await deps.keys.check(presented);
      if (!check.ok) throw new AppError("invalid_api_key");
      c.set("apiKey", check.key);
    }
    await next();
  };
}
