/**
 * Reranking (`/v1/rerank`, and llama-server's aliases `/v1/reranking`, `/rerank`, `/reranking`):
 * passed to engines that offer it, refused with a clear 400 for models that do not.
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { BodyLimit } from "../router/read_body.ts";
import type { KeyService } from "../keys/keys.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog, ModelEntry } from "../router/catalog.ts";
import { dispatch, type DispatchDeps } from "../router/dispatch.ts";
import { readJsonBody, requireModel } from "../router/read_body.ts";
import { requireApiKey } from "./require_api_key.ts";
import { traitsOf } from "../../core/engines/engine_traits.ts";
import { fromTeiRerank, toTeiRerank } from "./tei_rerank.ts";

export const rerankPaths = ["/v1/rerank", "/v1/reranking", "/rerank", "/reranking"];

/**
 * Until the catalog has capabilities, a model reranks when its engine is started for it: llama.cpp
 * (and the sim engine) take `--reranking` (alias `--rerank`), without which they cannot rerank.
 * An engine that never generates and reranks (text-embeddings-inference) needs no flag: its
 * model's own kind decides, and it answers for itself when the model is not a reranker.
 */
export function offersRerank(model: Pick<ModelEntry, "args" | "engine">): boolean {
  const serves = traitsOf(model.engine)?.serves ?? [];
  if (serves.includes("rerank") && !serves.includes("generate")) return true;
  return model.args.some((a) => a === "--reranking" || a === "--rerank");
}

/** Mounted at the root: the paths carry their own prefix. */
export function rerankRoutes(deps: {
  keys: Pick<KeyService, "check">;
  limits: BodyLimit;
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
      if (model?.engine === "tei") return await teiRerank(deps.dispatch, c, body);
      return await dispatch(deps.dispatch, c, "/rerank", body, { meter: c.get("answerMeter") });
    });
  }
  return app;
}

/** TEI's own `/rerank`, in its words both ways (tei_rerank.ts); its errors pass as they came. */
async function teiRerank(
  d: DispatchDeps,
  c: Context<AppEnv>,
  body: Record<string, unknown>,
): Promise<Response> {
  const tei = toTeiRerank(body);
  if (!tei) {
    throw new AppError("invalid_request", {
      detail: "documents must be a list of texts (or of objects with a text)",
    }, "documents");
  }
  const res = await dispatch(d, c, "/rerank", tei, { enginePath: "/rerank" });
  if (!res.ok) return res;
  const answer = fromTeiRerank(await res.json().catch(() => undefined), body);
  if (!answer) {
    throw new AppError("engine_error", {
      model: String(body.model),
      detail: "not a rerank answer",
    });
  }
  return c.json(answer);
}
