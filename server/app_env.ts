/** The Hono environment shared by every route: what middleware puts on the context. */
import type { ApiKeyInfo } from "./keys/keys.ts";
import type { Actor } from "./tenancy/access.ts";

export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the /v1 key check. */
    apiKey: ApiKeyInfo;
    /** Set by the admin API's authentication (people branch). */
    actor: Actor;
  };
}
