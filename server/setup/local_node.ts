/**
 * The single-box appliance's own node: the control plane and a supervisor in one process. It
 * declares the model `up` serves, starts its engine, and keeps the replica table in step with
 * the engine's state. (Remote nodes join through the agent instead; this is the local case.)
 */
import type { Logger } from "../../core/log.ts";
import { which } from "../../core/which.ts";
import { randomToken } from "../auth/secrets.ts";
import type { ControlPlane } from "../serve.ts";
import type { ServerConfig } from "../config.ts";
import { Supervisor } from "../../agent/supervisor.ts";
import { builtinAdapters } from "../../agent/engines/builtin_adapters.ts";

export const demoModel = "demo";
export const demoDescription =
  "Simulated model from llmgw's built-in sim engine: it answers with generated filler text, not a language model";

export interface ServedModel {
  name: string;
  engine: "llamacpp" | "sim";
  source: string;
  description: string | null;
  /** Why a real engine was not used, when one was asked for. */
  fallbackReason?: string;
}

/** Decides what `up` serves: the GGUF given, on llama-server if it can be found; else the demo. */
export async function chooseModel(
  config: ServerConfig,
  gguf: string | undefined,
): Promise<ServedModel> {
  const demo: ServedModel = {
    name: demoModel,
    engine: "sim",
    source: "",
    description: demoDescription,
  };
  if (!gguf) return demo;
  try {
    await Deno.stat(gguf);
  } catch {
    throw new TypeError(`Cannot serve --model ${gguf}: no such file`);
  }
  if (!(await which(config.llamaServer))) {
    return {
      ...demo,
      fallbackReason:
        `'${config.llamaServer}' was not found on PATH; serving the simulated 'demo' model instead`,
    };
  }
  const name = gguf.split("/").at(-1)!.replace(/\.gguf$/i, "");
  return { name, engine: "llamacpp", source: await Deno.realPath(gguf), description: null };
}

export interface LocalNode {
  supervisor: Supervisor;
  /** Resolves when the model's engine first answers, or rejects with why it could not start. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export async function startLocalNode(
  cp: ControlPlane,
  config: ServerConfig,
  model: ServedModel,
  logger: Logger,
): Promise<LocalNode> {
  const entry = await cp.deps.catalog.upsert({
    name: model.name,
    engine: model.engine,
    source: model.source,
    description: model.description,
  });
  const engineArgs = model.engine === "sim"
    ? ["--tokens-per-second", String(config.simTokensPerSecond), "--slots", String(config.simSlots)]
    : [];
  // The concurrency the engine serves well: the catalog's, else the engine's own slot count.
  const slots = entry.slots ?? (model.engine === "sim" ? config.simSlots : parallelOf(entry.args));
  const workDir = `${config.dataDir}/engines`;
  await Deno.mkdir(workDir, { recursive: true });
  const replicaKey = randomToken("llmgw_rep_");
  const supervisor = new Supervisor({
    logger: logger.child({ part: "supervisor" }),
    adapters: builtinAdapters,
    workDir,
    onChange: (h) => {
      if (h.state === "stopped") return cp.deps.replicas.remove(h.shardId);
      cp.deps.replicas.upsert({
        id: h.shardId,
        model: h.model,
        baseUrl: h.baseUrl,
        apiKey: replicaKey,
        state: h.state,
        slots,
      });
    },
  });
  const unwatch = cp.loadPoller.addSource((id) =>
    supervisor.get(id) ? supervisor.readLoad(id) : undefined
  );
  // Engines a previous run left behind (it was killed, not stopped) would hold the port and memory.
  const reaped = await supervisor.reapOrphans();
  if (reaped > 0) logger.warn("stopped engines left over from an earlier run", { count: reaped });
  const ready = supervisor.ensure({
    shardId: `local-${model.name}`,
    model: model.name,
    engine: model.engine,
    ...(model.source ? { modelPath: model.source } : {}),
    ...(model.engine === "llamacpp" ? { binary: config.llamaServer } : {}),
    args: engineArgs,
    apiKey: replicaKey,
    readyTimeoutMs: config.engineReadyTimeoutMs,
  }).then(() => {});
  return {
    supervisor,
    ready,
    stop: () => {
      unwatch();
      return supervisor.stopAll();
    },
  };
}

/** llama-server's `--parallel`/`-np` from its arguments; 4 (its usual auto value) when absent. */
export function parallelOf(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^(?:--parallel|-np)=(\d+)$/.exec(a);
    if (eq) return Math.max(1, Number(eq[1]));
    if ((a === "--parallel" || a === "-np") && /^\d+$/.test(args[i + 1] ?? "")) {
      return Math.max(1, Number(args[i + 1]));
    }
  }
  return 4;
}
