/** The OpenAI-compatible client API under /v1. */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import { bearerToken } from "../auth/admin_tokens.ts";
import { clientAddr } from "../auth/actor.ts";
import { keyRefusal } from "../keys/refusal.ts";
import type { BodyLimit } from "../router/read_body.ts";
import type { KeyService } from "../keys/keys.ts";
import type { PeopleServices } from "../tenancy/services.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog, ModelEntry } from "../router/catalog.ts";
import { dispatch, type DispatchDeps, type EnginePath } from "../router/dispatch.ts";
import { readJsonRequest } from "../router/read_body.ts";
import { modelLimits } from "../models/model_limits.ts";
import type { KnowledgeBases } from "../kb/knowledge_bases.ts";
import { groundChat, kbHeader, withCitations } from "../kb/ground_chat.ts";

const relayed: EnginePath[] = ["/chat/completions", "/completions", "/embeddings"];

export interface V1Deps {
  keys: Pick<KeyService, "check">;
  catalog: Pick<ModelCatalog, "list" | "get" | "knowledgeBasesOf">;
  people: Pick<PeopleServices, "admission">;
  limits: BodyLimit;
  dispatch: DispatchDeps;
  /** Collections a chat request names in `x-llmgw-kb` (retrieval-augmented chat). */
  kb: Pick<KnowledgeBases, "resolve" | "search">;
}

export function v1Routes(deps: V1Deps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use("*", async (c, next) => {
    const presented = bearerToken(c.req.raw);
    if (!presented) throw new AppError("missing_api_key");
    const check = await deps.keys.check(presented, clientAddr(c)); // people: per-address allowance
    if (!check.ok) throw keyRefusal(check);
    c.set("apiKey", check.key);
    await next();
  });

  app.get("/models", (c) =>
    c.json({
      object: "list",
      // people: only the models the key's levels allow.
      data: deps.catalog.list().filter((m) => deps.people.admission.allows(c.get("apiKey"), m.name))
        .map(modelObject),
    }));

  app.get("/models/:id{.+}", (c) => {
    const model = deps.catalog.get(c.req.param("id"));
    if (!model || !deps.people.admission.allows(c.get("apiKey"), model.name)) { // people
      throw new AppError("model_not_found", { model: c.req.param("id") });
    }
    return c.json(modelObject(model));
  });

  for (const path of relayed) {
    app.post(path, async (c) => {
      const { body, bytes } = await readJsonRequest(c.req.raw, deps.limits.maxBodyBytes);
      const named = path === "/chat/completions" ? c.req.header(kbHeader) : undefined;
      const carried = path === "/chat/completions" && typeof body.model === "string"
        ? deps.catalog.knowledgeBasesOf(body.model)
        : [];
      if (named || carried.length) {
        // Named in the header: each must exist for the key. Carried by an alias: the key's own
        // collections of those names, where it has them.
        const grounded = named
          ? await groundChat(deps.kb, c.get("apiKey"), named.split(","), body)
          : await groundChat(deps.kb, c.get("apiKey"), carried, body, { skipMissing: true });
        const res = await dispatch(deps.dispatch, c, path, grounded.body, {
          meter: c.get("answerMeter"),
        });
        return await withCitations(res, grounded.citations);
      }
      return await dispatch(deps.dispatch, c, path, body, {
        meter: c.get("answerMeter"),
        rawBody: bytes,
      });
    });
  }
  return app;
}

/** OpenAI's model object; `description` only when one was written, never an empty field. */
function modelObject(m: ModelEntry) {
  return {
    id: m.name,
    object: "model" as const,
    created: Math.floor(m.createdAt / 1000),
    owned_by: "llmgw",
    ...(m.description ? { description: m.description } : {}),
    ...modelLimits(m),
  };
}
