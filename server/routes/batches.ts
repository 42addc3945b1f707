/** OpenAI's Batch API at /v1/batches: create, retrieve, list, cancel. The runner does the work. */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { KeyService } from "../keys/keys.ts";
import type { BatchService } from "../batches/batch_service.ts";
import { readJsonBody } from "../router/read_body.ts";
import { requireApiKey } from "./require_api_key.ts";
import { listPage, pageLimit } from "./list_page.ts";

export function batchesRoutes(deps: {
  keys: Pick<KeyService, "check">;
  batches: BatchService;
  limits: { readonly maxBodyBytes: number };
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/batches", requireApiKey(deps));
  app.use("/batches/*", requireApiKey(deps));
  app.post("/batches", async (c) => {
    const req = await readJsonBody(c.req.raw, deps.limits.maxBodyBytes);
    return c.json(await deps.batches.create(c.get("apiKey").id, req));
  });
  app.get("/batches", async (c) => {
    const limit = pageLimit(c.req.query("limit"), 20, 100);
    const data = await deps.batches.list(c.get("apiKey").id, limit);
    return c.json(listPage(data, data.length === limit));
  });
  app.get(
    "/batches/:id",
    async (c) => c.json(await deps.batches.get(c.get("apiKey").id, c.req.param("id"))),
  );
  app.post(
    "/batches/:id/cancel",
    async (c) => c.json(await deps.batches.cancel(c.get("apiKey").id, c.req.param("id"))),
  );
  return app;
}
