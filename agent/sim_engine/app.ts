/**
 * The simulated engine as a Hono app, speaking llama-server's dialect of the OpenAI API. Building
 * it starts nothing: all state lives in the returned app, and serve.ts puts it on a port.
 */
import { Hono } from "hono";
import { chatHandler, completionHandler } from "./completions.ts";
import { embeddingHandler } from "./embeddings.ts";
import { judgeHandler } from "./judge.ts";
import { createEngine, type Engine, type SimEngineOptions } from "./engine.ts";
import { renderMetrics } from "./metrics.ts";
import { rerankHandler } from "./rerank.ts";
import { errorBody } from "./openai_shapes.ts";
import { emptyPrefix } from "./prompt_cache.ts";
import { llamaQuirks } from "./llama_quirks.ts";

export type { SimEngineOptions } from "./engine.ts";

/** llama-server lets health checks through without the key so probes need no secret. */
const publicPaths = new Set(["/health", "/v1/health"]);

export function buildSimEngineApp(opts: SimEngineOptions = {}): Hono {
  const engine = createEngine(opts);
  const app = new Hono();

  app.use("*", async (c, next) => {
    if (engine.apiKey && !publicPaths.has(c.req.path) && !authorised(c.req.raw, engine.apiKey)) {
      const body = errorBody("Invalid API Key", {
        type: "authentication_error",
        code: "invalid_api_key",
      });
      return c.json(body, 401);
    }
    await next();
  });
  if (opts.quirks === "llamacpp") app.use("*", llamaQuirks());

  // llama-server answers on the bare paths as well as under /v1.
  for (const prefix of ["", "/v1"]) {
    app.post(
      `${prefix}/chat/completions`,
      engine.judge ? judgeHandler(engine, engine.judge) : chatHandler(engine),
    );
    app.post(`${prefix}/completions`, completionHandler(engine));
    app.post(`${prefix}/embeddings`, embeddingHandler(engine));
    app.post(`${prefix}/rerank`, rerankHandler(engine));
    app.post(`${prefix}/reranking`, rerankHandler(engine));
    app.get(`${prefix}/models`, (c) => c.json(models(engine)));
    app.get(`${prefix}/health`, (c) => c.json({ status: "ok" }));
  }
  app.get("/metrics", (c) => {
    c.header("content-type", "text/plain; version=0.0.4");
    return c.body(renderMetrics(engine.counters, engine.pool));
  });
  app.get("/slots", (c) => {
    const idle = engine.pool.processing < engine.pool.slots.length;
    if (c.req.query("fail_on_no_slot") && !idle) {
      return c.json(errorBody("no slot available", { type: "unavailable_error" }), 503);
    }
    return c.json(slots(engine));
  });
  app.post("/slots/:id", async (c) => {
    const answer = slotAction(engine, c.req.param("id"), c.req.query("action"), await c.req.text());
    return c.json(answer.body, answer.status);
  });
  app.get("/props", (c) => c.json(props(engine)));

  app.notFound((c) => c.json(errorBody(`Not found: ${c.req.method} ${c.req.path}`), 404));
  app.onError((err, c) => {
    engine.log.error("sim-engine request failed", { path: c.req.path, error: err });
    return c.json(errorBody("Internal server error", { type: "server_error" }), 500);
  });
  return app;
}

function authorised(req: Request, key: string): boolean {
  const auth = req.headers.get("authorization") ?? "";
  const given = auth.toLowerCase().startsWith("bearer ")
    ? auth.slice(7).trim()
    : req.headers.get("x-api-key") ?? "";
  return sameText(given, key);
}

/** Compares without stopping at the first difference, so timing does not leak the key. */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a.charCodeAt(i) || 0) ^ b.charCodeAt(i);
  return diff === 0;
}

function models(engine: Engine) {
  return {
    object: "list",
    data: [{
      id: engine.model,
      object: "model",
      created: engine.startedAt,
      owned_by: "llmgw-sim",
      meta: { n_ctx_train: engine.pool.nCtx, n_embd: engine.embeddingDims },
    }],
  };
}

function slots(engine: Engine) {
  return engine.pool.slots.map((s) => ({
    id: s.id,
    id_task: s.taskId,
    n_ctx: s.nCtx,
    speculative: false,
    is_processing: s.processing,
    params: { n_predict: s.nPredict },
    next_token: {
      has_next_token: s.processing,
      n_remain: s.processing ? Math.max(0, s.nPredict - s.decoded) : -1,
      n_decoded: s.decoded,
    },
    n_prompt_tokens: s.promptTokens,
  }));
}

/**
 * llama-server's slot save, restore and erase (started with --slot-save-path), in memory: a saved
 * slot's prompt cache is kept under the file name, and restoring puts it back in a slot.
 */
function slotAction(
  engine: Engine,
  id: string,
  action: string | undefined,
  text: string,
): { status: 200 | 400; body: unknown } {
  const slot = engine.pool.slots[Number(id)];
  if (!slot || !/^\d+$/.test(id)) return { status: 400, body: errorBody("Invalid slot id") };
  if (action === "erase") {
    slot.cached = emptyPrefix;
    return { status: 200, body: { id_slot: slot.id } };
  }
  let filename: unknown;
  try {
    filename = (JSON.parse(text) as { filename?: unknown }).filename;
  } catch { /* answered below */ }
  if (typeof filename !== "string" || !/^[\w.-]+$/.test(filename) || filename.startsWith(".")) {
    return { status: 400, body: errorBody("Invalid filename") };
  }
  if (action === "save") {
    engine.savedSlots.set(filename, slot.cached);
    return {
      status: 200,
      body: { id_slot: slot.id, filename, n_saved: slot.cached.hashes.length },
    };
  }
  if (action === "restore") {
    const saved = engine.savedSlots.get(filename);
    if (!saved) return { status: 400, body: errorBody("Failed to restore slot") };
    slot.cached = saved;
    return { status: 200, body: { id_slot: slot.id, filename, n_restored: saved.hashes.length } };
  }
  return { status: 400, body: errorBody("Invalid action") };
}

function props(engine: Engine) {
  return {
    default_generation_settings: { n_ctx: engine.pool.nCtx, params: { n_predict: -1 } },
    total_slots: engine.pool.slots.length,
    model_path: engine.model,
    build_info: "llmgw-sim",
  };
}
