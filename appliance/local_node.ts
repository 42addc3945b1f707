/**
 * The single-box appliance's own node: the control plane and an agent in one process. The agent
 * joins over the loopback cluster listener like any remote node, and the model `up` serves is
 * declared in the catalog, so the reconciler places it there (and can place more).
 */
import type { Logger } from "../core/log.ts";
import { UsageError } from "../core/command.ts";
import { which } from "../core/which.ts";
import { type EngineName, engineTraits } from "../core/engines/engine_traits.ts";
import { eq } from "drizzle-orm";
import type { ControlPlane } from "../server/wiring/serve.ts";
import type { ServerConfig } from "../server/wiring/config.ts";
import { Agent } from "../agent/agent.ts";
import { builtinAdapters } from "../agent/engines/builtin_adapters.ts";
import { readEngineLoad } from "../agent/read_engine_load.ts";
import { loadAgentConfig } from "../agent/agent_config.ts";
import { joinCluster } from "../agent/channel/join.ts";
import { readNodeFiles } from "../agent/channel/node_files.ts";
import { replicas } from "../db/schema.ts";
import { nodeOfRoute } from "../server/router/replicas.ts";
import { parseModel } from "../server/models/model_yaml.ts";

export const demoModel = "demo";
export const demoDescription =
  "Simulated model from llmgw's built-in sim engine: it answers with generated filler text, not a language model";

export interface ServedModel {
  name: string;
  engine: Extract<EngineName, "llamacpp" | "sim">;
  source: string;
  description: string | null;
}

/**
 * Decides what `up` serves: the GGUF given, on llama-server; with no GGUF, the demo. A GGUF asked
 * for and no llama-server to run it is refused: the simulated model answering in its place would
 * look like the real one to everyone but the person reading the log.
 */
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
  await requireModelFile(gguf);
  if (!(await which(config.llamaServer))) throw new UsageError(noLlamaServer(config.llamaServer));
  const name = gguf.split("/").at(-1)!.replace(/\.gguf$/i, "");
  return { name, engine: "llamacpp", source: await Deno.realPath(gguf), description: null };
}

function noLlamaServer(binary: string): string {
  return `cannot serve a GGUF: llama.cpp's server '${binary}' was not found` +
    (binary.includes("/") ? "" : " on PATH") + ".\n" +
    `  Install llama.cpp (a release from https://github.com/ggml-org/llama.cpp/releases, or\n` +
    `  'brew install llama.cpp', or build it: cmake -B build && cmake --build build -t llama-server),\n` +
    `  then put llama-server on PATH or point at it with --engines-llama-server PATH\n` +
    `  (LLMGW_ENGINES_LLAMA_SERVER, engines.llama_server in server.yaml).\n` +
    `  Without --model, llmgw up serves the simulated 'demo' model.`;
}

/** `--model FILE` names a file that is there: checked before init, so a refusal leaves nothing. */
export async function requireModelFile(gguf: string | undefined): Promise<void> {
  if (gguf === undefined) return;
  const stat = await Deno.stat(gguf).catch(() => undefined);
  if (!stat) throw new UsageError(`cannot serve --model ${gguf}: no such file`);
  if (!stat.isFile) throw new UsageError(`cannot serve --model ${gguf}: not a file`);
}

export interface LocalNode {
  /** Resolves when the model has a ready replica, or rejects with why it could not start. */
  ready: Promise<void>;
  stop(): Promise<void>;
  /** Engines stopped from now on get no grace: SIGKILL at once. */
  hurry(): void;
}

/** Where `up` keeps its own node's credential, CA and engine records. */
export const localNodeDir = (dataDir: string) => `${dataDir}/node`;

/**
 * Joins this control plane as a node over its own loopback TLS listener (once: later runs reuse
 * the credential), runs an Agent in this process, and declares the served model through the
 * models service with one replica, so the reconciler places it like on any other node.
 */
export async function startLocalNode(
  cp: ControlPlane,
  config: Pick<ServerConfig, "dataDir" | "llamaServer" | "engineReadyTimeoutMs" | "simSlots">,
  model: ServedModel,
  logger: Logger,
  opts: { env?: Record<string, string> } = {},
): Promise<LocalNode> {
  const services = cp.deps.nodes;
  const modelServices = cp.deps.modelServices;
  const urls = cp.clusterUrls ?? [];
  if (!services || !modelServices || urls.length === 0) {
    throw new TypeError(
      "llmgw up runs its model on a node of its own, which needs the cluster listener: set cluster_listen (e.g. 127.0.0.1:8443)",
    );
  }
  const dir = localNodeDir(config.dataDir);
  const controlUrl = urls[0]!;
  let files: { credential: string; caPem: string };
  try {
    files = await readNodeFiles(dir);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    // First run: a join code, redeemed over the cluster listener exactly as a remote node would.
    const { code } = await services.joinCodes.create({ labels: {}, ttlMs: 60_000 });
    await joinCluster({ code, controlUrl, dataDir: dir, name: localNodeName });
    files = await readNodeFiles(dir);
  }
  // The process environment as a joined node's agent reads it (LLMGW_NVML_LIBRARY, the agent's
  // settings), so this node reports its host and GPUs exactly as `llmgw agent` would.
  const agentConfig = await loadAgentConfig({
    flags: {
      data: dir,
      "control-urls": urls.join(","),
      name: localNodeName,
      "engines-llama-server": config.llamaServer,
      // Ports the kernel picks, as before: a fixed range walked from its start would hand two
      // appliances on one box the same port between the check and the bind.
      "engines-ports": "",
      "engines-ready-timeout-ms": String(config.engineReadyTimeoutMs),
    },
    env: opts.env ?? Deno.env.toObject(),
  });
  const agent = new Agent({
    config: agentConfig,
    logger: logger.child({ part: "node" }),
    ...files,
  });
  await agent.start();
  void agent.ended.then(({ reason }) => {
    logger.error(
      `the local node's credential was refused (${reason}); remove ${dir} and run llmgw up again`,
    );
  });
  const simulated = engineTraits[model.engine].simulated;
  const gpus = simulated ? 0 : await cardsThatFit(cp, model, logger);
  const def = parseModel({
    name: model.name,
    ...(model.description ? { description: model.description } : {}),
    // The sim engine reads no weights; its source only names it.
    source: simulated ? `/llmgw/${model.name}` : model.source,
    scaling: { min: 1, max: 1 },
    ...(simulated ? { slots: config.simSlots } : {}),
    profiles: [{
      engine: model.engine,
      gpus,
      cores: 1,
      ...(simulated ? { memory_gb: 0.1, args: ["--slots", String(config.simSlots)] } : {}),
    }],
  });
  // `up` serves what it was told: a model an earlier `up` served and this one does not would
  // otherwise keep its replica (scaling min 1), and a card, forever. Models added through the
  // API or server.yaml are the operator's and stay.
  for (const e of cp.deps.catalog.list()) {
    if (e.declaredIn !== "up" || e.name === model.name) continue;
    await modelServices.remove(e.name, false);
    logger.info("a model an earlier llmgw up served is no longer served", { model: e.name });
  }
  await modelServices.add([def], { replace: true, origin: "up" });
  // Heartbeats carry every node's engine load every few seconds; the local node's engines are
  // also read at the poller's faster pace, since they are one loopback request away.
  const adapter = builtinAdapters[model.engine];
  const unwatch = cp.loadPoller.addSource((id) => {
    const r = cp.deps.replicas.get(id);
    if (!r || r.model !== model.name || r.state !== "ready") return undefined;
    return readEngineLoad(fetch, r.baseUrl, adapter, r.apiKey, cp.deps.clock.now());
  });
  const ready = untilReady(
    cp,
    model.name,
    () => agent.nodeId,
    config.engineReadyTimeoutMs + 30_000,
  );
  return {
    ready,
    stop: () => {
      unwatch();
      return agent.stop();
    },
    hurry: () => agent.hurry(),
  };
}

const localNodeName = "local";

/**
 * The cards `up`'s model takes: the plan's first layout on this node once it has reported its
 * hardware (the fewest cards that hold the weights and the context, so llama.cpp offloads its
 * layers there), 0 (the CPU) when no card holds it or the node has none.
 */
async function cardsThatFit(cp: ControlPlane, model: ServedModel, logger: Logger) {
  const services = cp.deps.modelServices!;
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const { snap } = await services.reconciler.view();
    const node = snap.snapshot.nodes.find((n) => n.name === localNodeName);
    if (node?.state === "ready" && node.engines.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    // Its own name may already be taken (an earlier `up`); the layouts do not depend on it.
    const plan = await services.plan(model.source, { name: model.name, engine: model.engine });
    const gpus = plan.layouts[0]?.gpus ?? 0;
    logger.info("the model's place on this machine", {
      model: model.name,
      gpus,
      ...(plan.layouts[0]?.perCard ? { perCardBytes: plan.layouts[0].perCard.total } : {}),
    });
    return gpus;
  } catch (e) {
    logger.warn("could not plan the model; it runs on the CPU", { error: (e as Error).message });
    return 0;
  }
}

/**
 * Polls the router's replicas (ready) and the replica records (failed, with the reason). Only
 * this node's replicas count, and only once it has been welcomed: before that the router may hold
 * rows an earlier run published, naming an engine this node is about to replace.
 */
async function untilReady(
  cp: ControlPlane,
  model: string,
  nodeId: () => string | undefined,
  ms: number,
): Promise<void> {
  const deadline = Date.now() + ms;
  const ours = (id: string) => nodeId() !== undefined && nodeOfRoute(id) === nodeId();
  while (Date.now() < deadline) {
    if (cp.deps.replicas.forModel(model).some((r) => r.state === "ready" && ours(r.id))) return;
    const failed = (await cp.deps.store.db.select().from(replicas).where(eq(replicas.model, model)))
      .find((s) => s.state === "failed");
    if (failed) throw new Error(failed.reason ?? "the engine failed");
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ready replica of ${model} within ${ms} ms`);
}
