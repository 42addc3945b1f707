/**
 * An adapter for tests that runs testdata/tiny_engine.ts, optionally behind a bash wrapper that
 * leaves a grandchild in the engine's group and a stray that left it (both record their pids in
 * the replica directory), to show that stopping an engine stops its whole tree.
 */
import { selfCommandEnv } from "../../core/self_command.ts";
import type { EngineAdapter, LaunchPlan, PlanInput } from "../engines/engine_adapter.ts";
import { httpProbes } from "../engines/engine_adapter.ts";
import type { LaunchSpec } from "../launch_spec.ts";
import { llamacppDialect } from "../engines/metric_dialect.ts";

const script = decodeURIComponent(new URL("./tiny_engine.ts", import.meta.url).pathname);

/** A launch of the tiny engine as replica `tiny-1`: quick polls, three quick restarts. */
export function tinySpec(apiKey: string, over: Partial<LaunchSpec> = {}): LaunchSpec {
  return {
    replicaId: "tiny-1",
    model: "tiny",
    engine: "tiny",
    apiKey,
    readyTimeoutMs: 10_000,
    pollIntervalMs: 50,
    restart: { maxAttempts: 3, baseDelayMs: 20 },
    ...over,
  };
}

export function tinyAdapter(opts: { withDescendants?: boolean } = {}): EngineAdapter {
  return {
    name: "tiny",
    ...httpProbes,
    dialect: llamacppDialect,
    requirements: { gpu: "none" },
    detect: () => Promise.resolve({ installed: true, binary: Deno.execPath() }),
    plan(input: PlanInput): LaunchPlan {
      const engine = [
        Deno.execPath(),
        "run",
        "--allow-net",
        "--allow-env",
        script,
        "--port",
        String(input.port),
        "--host",
        input.host,
        ...input.args,
      ];
      const env = { ...selfCommandEnv(), LLAMA_API_KEY: input.apiKey };
      if (!opts.withDescendants) return { cmd: engine[0]!, args: engine.slice(1), env };
      const wrapper = "sleep 300 & echo $! > grandchild.pid; " +
        "setsid sleep 300 & echo $! > stray.pid; " +
        'exec "$0" "$@"';
      return { cmd: "bash", args: ["-c", wrapper, ...engine], env };
    },
  };
}
