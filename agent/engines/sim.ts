/**
 * The simulated engine (`llmgw sim-engine`): this same program started again, speaking llama.cpp's
 * health, metrics and slots dialect, so it needs no weights.
 */
import { selfCommand, selfCommandEnv } from "../../core/self_command.ts";
import { VERSION } from "../../core/version.ts";
import type { EngineAdapter, LaunchPlan, PlanInput } from "./engine_adapter.ts";
import { httpProbes } from "./engine_adapter.ts";
import { engineTraits } from "../../core/engines/engine_traits.ts";
import { checkFlags } from "../../core/engines/flag_gate.ts";
import { simFlagRules } from "../../core/engines/engine_flag_rules.ts";
import { llamacppDialect } from "./metric_dialect.ts";
import { LaunchPlanError } from "../../core/engines/launch_plan_error.ts";

const traits = engineTraits.sim;

/** A set's worker, as llama.cpp's rpc-server plays it: a TCP port on loopback, no HTTP. */
export const simWorkerAdapter: EngineAdapter = {
  name: traits.name,
  ...httpProbes,
  probe: "tcp",
  dialect: llamacppDialect,
  requirements: { gpu: traits.gpu },
  detect: () => Promise.resolve({ installed: true, binary: selfCommand([]).cmd, version: VERSION }),
  plan(input: PlanInput): LaunchPlan {
    const self = selfCommand(["sim-engine", "--worker", "--port", String(input.port)]);
    return { cmd: self.cmd, args: self.args, env: selfCommandEnv() };
  },
};

export const simAdapter: EngineAdapter = {
  name: traits.name,
  ...httpProbes,
  dialect: llamacppDialect,
  requirements: { gpu: traits.gpu },
  worker: simWorkerAdapter,
  /** Built in: always installed, at this program's version. */
  detect: () => Promise.resolve({ installed: true, binary: selfCommand([]).cmd, version: VERSION }),
  plan(input: PlanInput): LaunchPlan {
    checkFlags(simFlagRules, input.args, input.allowFlags);
    const profile = input.profile ?? {};
    // It answers chat, completions and embeddings alike; reranking it cannot fake.
    if (profile.mode === "rerank") {
      throw new LaunchPlanError("sim", "the simulated engine does not rerank");
    }
    const self = selfCommand([
      "sim-engine",
      "--port",
      String(input.port),
      "--host",
      input.host,
      "--model",
      input.model,
      ...(profile.parallel !== undefined ? ["--slots", String(profile.parallel)] : []),
      ...(profile.set?.workers?.length
        ? ["--rpc", profile.set.workers.map((w) => w.address).join(",")]
        : []),
      ...input.args,
    ]);
    // `binary` is ignored: the simulated engine is always this program.
    return {
      cmd: self.cmd,
      args: self.args,
      env: { ...selfCommandEnv(), LLAMA_API_KEY: input.apiKey },
    };
  },
};
