/** Puts the simulated engine on a real port, for the CLI and for tests in the same process. */
import { silentLogger } from "../../core/log.ts";
import { buildSimEngineApp, type SimEngineOptions } from "./app.ts";

export interface SimEngineServeOptions extends SimEngineOptions {
  /** 0 (the default) picks a free port. */
  port?: number | undefined;
  hostname?: string | undefined;
}

export interface RunningSimEngine {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:41234 (the OpenAI base is +/v1). */
  url: string;
  port: number;
  /** Stops generations in flight, empties the queue, then closes the listener. */
  close(): Promise<void>;
}

export async function startSimEngine(opts: SimEngineServeOptions = {}): Promise<RunningSimEngine> {
  const stop = new AbortController();
  const app = buildSimEngineApp({ ...opts, signal: stop.signal });
  const hostname = opts.hostname ?? "127.0.0.1";
  const log = opts.logger ?? silentLogger;
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    port: opts.port ?? 0,
    hostname,
    onListen: resolve,
    // Also called when a response stream errors, which is how a stream cut by close() ends; the
    // default handler would print each one with a stack trace.
    onError: (e) => {
      log.debug("sim-engine response failed", { error: e instanceof Error ? e : String(e) });
      return new Response(null, { status: 500 });
    },
  }, app.fetch);
  const addr = await listening;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${addr.port}`,
    port: addr.port,
    close: () => {
      closed ??= (async () => {
        stop.abort(new DOMException("sim-engine is shutting down", "AbortError"));
        await server.shutdown();
      })();
      return closed;
    },
  };
}
