/** The Hono environment shared by every route: what middleware puts on the context. */
import type { ApiKeyInfo } from "./keys/keys.ts";
import type { Actor } from "./tenancy/access.ts";
import type { GenAiParams } from "./observe/genai.ts";

export interface AppEnv {
  Variables: {
    requestId: string;
    /** Set by the /v1 key check. */
    apiKey: ApiKeyInfo;
    /** Set by the admin API's authentication (people branch). */
    actor: Actor;
    /** The catalog model a /v1 request is for, once known (access log, metrics). */
    model: string;
    /** Sampling fields read for the trace only (never a reason to refuse). */
    genAi: GenAiParams;
  };
}
