/** The Hono environment shared by every route: what middleware puts on the context. */
import type { ApiKeyInfo } from "./keys/keys.ts";
import type { Actor } from "./tenancy/access.ts";
import type { GenAiParams } from "./observe/genai.ts";
import type { AnswerMeter } from "./observe/answer_meter.ts";

export interface AppEnv {
  /** What the listener hands each request besides the request itself (absent in `app.request`). */
  Bindings: {
    /** The peer as the listener saw it (never a forwarded header, which anyone can send). */
    remoteAddr?: { hostname?: string };
    /**
     * Aborted when the client leaves, or when the shutdown grace has run out (a request still
     * open sees its client gone). The listener's, not the Request's own signal: a Request built
     * around a signal costs a dependent signal per request, and merging a shutdown signal into
     * it another.
     */
    clientGone?: AbortSignal;
  };
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
    /** Set by the access log; claimed by a handler that reports its answer's end itself. */
    answerMeter: AnswerMeter;
  };
}
