/** Helpers for routing tests: more sim engines as replicas, tiny fake servers, usage rows. */
import { type SimEngineServeOptions, startSimEngine } from "../../agent/sim_engine/serve.ts";
import { usage } from "../../db/schema.ts";
import type { Harness } from "./harness.ts";

export const engineKey = "engine-secret";

/** Starts a sim engine and adds it to the harness as a ready replica; closed with `h.close()`-ish `stop`. */
export async function addSimReplica(
  h: Harness,
  id: string,
  opts: SimEngineServeOptions & { model?: string; slots?: number } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const engine = await startSimEngine({ tokensPerSecond: 5000, apiKey: engineKey, ...opts });
  addReplica(h, id, engine.url, { ...opts, apiKey: engineKey });
  return engine;
}

/**
 * Adds (or replaces) a ready replica at `baseUrl`: of `demo` unless `model` says, sent the key
 * `k` unless `apiKey` says (a fake server reads none).
 */
export function addReplica(
  h: Harness,
  id: string,
  baseUrl: string,
  opts: { model?: string; apiKey?: string; slots?: number } = {},
): void {
  h.deps.replicas.upsert({
    id,
    model: opts.model ?? "demo",
    baseUrl,
    apiKey: opts.apiKey ?? "k",
    state: "ready",
    ...(opts.slots !== undefined ? { slots: opts.slots } : {}),
  });
}

/** (Re)adds the harness's own engine as replica `r1`, with `slots` when given. */
export function addHarnessReplica(h: Harness, opts: { slots?: number } = {}): void {
  addReplica(h, "r1", h.engine.url, { ...opts, apiKey: engineKey });
}

/** A real HTTP server on a loopback port answering with `handler`. */
export function fakeServer(
  handler: (req: Request) => Response | Promise<Response>,
): { url: string; hits: () => number; close(): Promise<void> } {
  let hits = 0;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
    // A stream the test breaks on purpose is not worth a stack trace.
    onError: () => new Response(null, { status: 500 }),
  }, (req) => {
    hits++;
    return handler(req);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    hits: () => hits,
    close: () => server.shutdown(),
  };
}

export async function usageRows(h: Harness) {
  await h.usage.flush();
  return await h.store.db.select().from(usage);
}

export function chat(content: string, extra: Record<string, unknown> = {}) {
  return { model: "demo", max_tokens: 4, messages: [{ role: "user", content }], ...extra };
}
