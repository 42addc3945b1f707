/**
 * `llmgw up`: the whole appliance on one box in one process. Initialises the data directory if
 * needed, runs the control plane and its own node (an in-process agent joined over the loopback
 * cluster listener), declares the model it serves, and prints what to use.
 */
import { systemClock } from "../core/clock.ts";
import { engineTraits } from "../core/engines/engine_traits.ts";
import type { Command } from "../core/command.ts";
import { createLogger, LevelControl } from "../core/log.ts";
import { settingsHelp } from "../core/settings.ts";
import { shutdownSignals } from "../core/signals.ts";
import { loadServerConfig, locationSettings, serverSettings } from "../server/config.ts";
import { startControlPlane } from "../server/serve.ts";
import { exists } from "../core/exists.ts";
import { initDataDir } from "../server/setup/init.ts";
import { ensureLocalKey } from "../server/setup/local_key.ts";
import { chooseModel, startLocalNode } from "./local_node.ts";
import { printInitResult } from "../server/cli/init.ts";
import { parseFlags } from "../core/flags.ts";

export const upCommand: Command = {
  name: "up",
  summary: "Run the single-box appliance",
  async run(argv) {
    const { values } = parseFlags(argv, [locationSettings, serverSettings], {
      model: { type: "string" },
    });
    if (values.help) {
      console.log(
        `Usage: llmgw up [--data DIR] [--listen HOST:PORT] [--model FILE.gguf] [options]\n\n` +
          `Initialises DIR if needed, then runs the control plane and a local engine in one process.\n` +
          `With --model it serves that GGUF on llama-server (on PATH, or --engines-llama-server);\n` +
          `without, the simulated 'demo'.\n` +
          `Ctrl-C (or SIGTERM) stops in order: requests in flight finish within shutdown_grace_ms, then\n` +
          `the engines stop, then usage is written. A second one stops now: requests are cut, engines\n` +
          `killed, usage still written.\n\n` +
          `  --model                      A GGUF file to serve with llama-server\n` +
          settingsHelp({ ...locationSettings, ...serverSettings }),
      );
      return 0;
    }
    const env = Deno.env.toObject();
    const location = await loadServerConfig({ flags: { data: values.data }, env });
    if (!(await exists(`${location.dataDir}/llmgw.db`))) {
      const listen = typeof values.listen === "string" ? values.listen : undefined;
      printInitResult(
        await initDataDir(location.dataDir, { clock: systemClock, ...(listen ? { listen } : {}) }),
      );
    }
    const config = await loadServerConfig({ flags: values, env });
    const logLevel = new LevelControl(config.logLevel);
    const logger = createLogger({ level: logLevel, format: config.logFormat });
    const model = await chooseModel(
      config,
      typeof values.model === "string" ? values.model : undefined,
    );

    const cp = await startControlPlane(config, { logger, logLevel });
    let node;
    try {
      node = await startLocalNode(cp, config, model, logger);
    } catch (e) {
      await cp.close();
      throw e;
    }
    const signals = shutdownSignals();
    const key = await ensureLocalKey(config.dataDir, cp.deps.keys);
    const stoppedWhileLoading = await Promise.race([
      node.ready.then(() => false, (e) => {
        logger.error("the model's engine did not start", { model: model.name, error: e });
        return false;
      }),
      signals.requested.then(() => true),
    ]);
    // Stopped while the engine was loading: no banner saying it is up.
    if (!stoppedWhileLoading) {
      console.log(
        `\nllmgw is up on ${cp.url}\n` +
          `  model:   ${model.name}${
            engineTraits[model.engine].simulated ? " (simulated)" : ""
          }\n` +
          `  API key: ${key.key}${
            key.created
              ? "  (new; also kept in " + key.path + ", mode 0600)"
              : "  (from " + key.path + ")"
          }\n\n` +
          `Try it:\n  curl ${cp.url}/v1/chat/completions -H "Authorization: Bearer ${key.key}" \\\n` +
          `    -H "Content-Type: application/json" -d '{"model":"${model.name}","messages":[{"role":"user","content":"Hello"}]}'\n\n` +
          `Ctrl-C stops llmgw and its engines.`,
      );
    }
    const sig = await signals.requested;
    logger.info("shutting down", { signal: sig });
    console.log(
      `\nStopping: requests in flight may finish (up to ${config.shutdownGraceMs / 1000} s), ` +
        `then the engines stop. Ctrl-C again to stop now.`,
    );
    void signals.hurried.then(() => {
      console.log("Stopping now: cutting requests in flight and killing the engines.");
      cp.cutRequests();
      node.hurry();
    });
    // Requests in flight finish first (within shutdown_grace_ms), then the engines stop, then
    // the rest: usage still in memory is written last.
    await cp.drain();
    await node.stop();
    await cp.close();
    return 0;
  },
};
