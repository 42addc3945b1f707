/**
 * An adapter for tests that runs testdata/tiny_engine.ts, optionally behind a bash wrapper that
 * leaves a grandchild in the engine's group and a stray that left it (both record their pids in
 * the shard directory), to show that stopping an engine stops its whole tree.
 */
import { selfCommandEnv } from "../../core/self_command.ts";
import type { EngineAdapter, LaunchPlan, PlanInput } from "../engines/engine_adapter.ts";
import { readyByStatusAndBody } from "../engines/engine_adapter.ts";
import { llamacppDialect } from "../engines/load_snapshot.ts";

const script = decodeURIComponent(new URL("./tiny_engine.ts", import.meta.url).pathname);

export function tinyAdapter(opts: { withDescendants?: boolean } = {}): EngineAdapter {
  return {
    name: "tiny",
    healthPath: "/health",
    isReady: readyByStatusAndBody,
    metricsPath: "/metrics",
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
