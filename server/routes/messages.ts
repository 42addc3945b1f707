/**
 * Anthropic's Messages API at /v1/messages, for Claude-style clients: the request is translated
 * to an OpenAI chat completions body, goes through the one dispatch() every dialect uses, and
 * the answer (whole, streamed, or an error) is translated back.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { BodyLimit } from "../router/read_body.ts";
import type { KeyService } from "../keys/keys.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";
import { readJsonBody } from "../router/read_body.ts";
import { toChatRequest } from "../anthropic/request.ts";
import { type MessageContext, toErrorBody, toMessage } from "../anthropic/response.ts";
import { translateStream } from "../anthropic/stream.ts";
import { requireApiKey } from "./require_api_key.ts";
import { estimateInputTokens } from "../anthropic/count_tokens.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog } from "../router/catalog.ts";
import type { PeopleServices } from "../tenancy/services.ts";

/** Mounted at /v1. */
export function messagesRoutes(deps: {
  keys: Pick<KeyService, "check">;
  limits: BodyLimit;
  catalog: Pick<ModelCatalog, "get">;
  people: Pick<PeopleServices, "admission">;
  dispatch: DispatchDeps;
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/messages", requireApiKey(deps));
  app.use("/messages/count_tokens", requireApiKey(deps));
  app.post("/messages/count_tokens", async (c) => {
    const req = await readJsonBody(c.req.raw, deps.limits.maxBodyBytes);
    // count_tokens takes no max_tokens; the translation needs one, and it is not counted.
    const t = toChatRequest({ ...req, max_tokens: 1 });
    const model = typeof t.model === "string" ? t.model : "";
    if (!deps.catalog.get(model) || !deps.people.admission.allows(c.get("apiKey"), model)) {
      throw new AppError("model_not_found", { model }, "model");
    }
    return c.json({ input_tokens: estimateInputTokens(t.body) });
  });
  app.post("/messages", async (c) => {
    const req = await readJsonBody(c.req.raw, deps.limits.maxBodyBytes);
    const t = toChatRequest(req);
    const requestId = c.get("requestId");
    const ctx: MessageContext = {
      id: `msg_${requestId}`,
      model: t.model,
      thinking: t.thinking,
      stopSequences: t.stopSequences,
    };
    const res = await dispatch(deps.dispatch, c, "/chat/completions", t.body, {
      endpoint: "/messages",
    });
    const type = res.headers.get("content-type") ?? "";
    if (res.ok && type.includes("text/event-stream") && res.body) {
      return new Response(translateStream(res.body, ctx), {
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          "x-accel-buffering": "no",
        },
      });
    }
    const text = await res.text();
    if (!res.ok) return c.json(toErrorBody(res.status, text, requestId), res.status as 400);
    let completion: unknown;
    try {
      completion = JSON.parse(text);
    } catch {
      return c.json(toErrorBody(502, "the engine's answer is not JSON", requestId), 502);
    }
    return c.json(toMessage(completion, ctx));
  });
  return app;
}
