/**
 * Reranking (`/v1/rerank`, and llama-server's aliases `/v1/reranking`, `/rerank`, `/reranking`):
 * passed to engines that offer it, refused with a clear 400 for models that do not.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { Limits } from "../deps.ts";
import type { KeyService } from "../keys/keys.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog, ModelEntry } from "../router/catalog.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";
import { readJsonBody, requireModel } from "../router/read_body.ts";
import { requireApiKey } from "./require_api_key.ts";

export const rerankPaths = ["/v1/rerank", "/v1/reranking", "/rerank", "/reranking"];

/**
 * Until the catalog has capabilities, a model reranks when its engine is started for it: llama.cpp
 * (and the sim engine) take `--reranking` (alias `--rerank`), without which they cannot rerank.
 */
export function offersRerank(model: Pick<ModelEntry, "args">): boolean {
  return model.args.some((a) => a === "--reranking" || a === "--rerank");
}

/** Mounted at the root: the paths carry their own prefix. */
export function rerankRoutes(deps: {
  keys: Pick<KeyService, "check">;
  limits: Pick<Limits, "maxBodyBytes">;
  catalog: Pick<ModelCatalog, "get">;
  dispatch: DispatchDeps;
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const path of rerankPaths) {
    app.use(path, requireApiKey(deps));
    app.post(path, async (c) => {
      const body = await readJsonBody(c.req.raw, deps.limits.maxBodyBytes);
      const name = requireModel(body);
      const model = deps.catalog.get(name);
      if (model && !offersRerank(model)) {
        throw new AppError("unsupported_endpoint", {
          model: name,
          endpoint: c.req.path,
          detail: "it is not a reranking model (its engine is not started with --reranking)",
        }, "model");
      }
      return await dispatch(deps.dispatch, c, "/rerank", body, { meter: c.get("answerMeter") });
    });
  }
  return app;
}
