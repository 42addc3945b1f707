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
import { loadServerConfig, locationSettings, serverSettings } from "../server/wiring/config.ts";
import { startControlPlane } from "../server/wiring/serve.ts";
import { exists } from "../core/exists.ts";
import { initDataDir } from "../server/wiring/init_data_dir.ts";
import { ensureLocalKey } from "../server/setup/local_key.ts";
import { shownPrefix } from "../server/keys/keys.ts";
import { chooseModel, requireModelFile, startLocalNode } from "./local_node.ts";
import { adminUsername, firstPasswordPath } from "../server/setup/first_password.ts";
import { printInitResult } from "../server/cli/init.ts";
import { parseFlags } from "../core/flags.ts";
import { Progress } from "../server/cli/progress.ts";
import { followStages } from "../server/cli/ctl/serve_wait.ts";

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
    const gguf = typeof values.model === "string" ? values.model : undefined;
    // What `up` was given (its flags, the environment, the model file) is checked before init:
    // a run refused for it makes nothing, so no one-time password is shown for nothing.
    const location = await loadServerConfig({ flags: values, env });
    await requireModelFile(gguf);
    if (!(await exists(`${location.dataDir}/llmgw.db`))) {
      const listen = typeof values.listen === "string" ? values.listen : undefined;
      printInitResult(
        await initDataDir(location.dataDir, { clock: systemClock, ...(listen ? { listen } : {}) }),
      );
    }
    const config = await loadServerConfig({ flags: values, env });
    const logLevel = new LevelControl(config.logLevel);
    // Log lines and the startup's progress line share the terminal: each line clears it first.
    const progress = new Progress();
    const logger = createLogger({
      level: logLevel,
      format: config.logFormat,
      sink: (line) => progress.around(() => console.error(line)),
    });
    const model = await chooseModel(config, gguf);

    const cp = await startControlPlane(config, { logger, logLevel });
    let node;
    try {
      node = await startLocalNode(cp, config, model, logger);
    } catch (e) {
      await cp.close();
      throw e;
    }
    const signals = shutdownSignals();
    const admin = [...cp.deps.people.tenancy.people.values()].find((p) =>
      p.username === adminUsername
    );
    const key = await ensureLocalKey(config.dataDir, cp.deps.keys, admin?.id ?? null);
    const loaded = Promise.race([
      node.ready.then(() => false, (e) => {
        logger.error("the model's engine did not start", { model: model.name, error: e });
        return false;
      }),
      signals.requested.then(() => true),
    ]);
    const services = cp.deps.modelServices;
    if (services && progress.drawing) {
      // The weights' fetch and the engine's start, on a terminal only: a journal gets the logs.
      await followStages(progress, async () => {
        const e = await services.explain(model.name);
        return { reps: e.replicas, notes: e.notes };
      }, loaded);
    }
    const stoppedWhileLoading = await loaded;
    // Stopped while the engine was loading: no banner saying it is up.
    if (!stoppedWhileLoading) {
      const firstPassword = firstPasswordPath(config.dataDir);
      console.log(banner({
        url: cp.url,
        model: `${model.name}${engineTraits[model.engine].simulated ? " (simulated)" : ""}`,
        modelName: model.name,
        key,
        firstPassword: (await exists(firstPassword)) ? firstPassword : undefined,
      }));
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

/**
 * What `up` prints once it serves. The API key in full only on the run that made it: under
 * systemd stdout is the journal, which every later start would fill with it again.
 */
function banner(o: {
  url: string;
  model: string;
  modelName: string;
  key: { key: string; path: string; created: boolean };
  firstPassword: string | undefined;
}): string {
  const { key } = o;
  const keyLine = key.created
    ? `${key.key}  (new; also kept in ${key.path}, mode 0600)`
    : `${shownPrefix(key.key)}… (kept in ${key.path})`;
  const bearer = key.created ? key.key : `$(cat ${key.path})`;
  return `\nllmgw is up on ${o.url}\n` +
    `  model:   ${o.model}\n` +
    `  API key: ${keyLine}\n` +
    (o.firstPassword
      ? `  admin:   sign in as admin; password: in ${o.firstPassword} (deleted at the first sign-in)\n`
      : "") +
    `\nTry it:\n  curl ${o.url}/v1/chat/completions -H "Authorization: Bearer ${bearer}" \\\n` +
    `    -H "Content-Type: application/json" -d '{"model":"${o.modelName}","messages":[{"role":"user","content":"Hello"}]}'\n\n` +
    `Ctrl-C stops llmgw and its engines.`;
}
