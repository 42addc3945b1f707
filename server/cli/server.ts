import type { Command } from "../../core/command.ts";
import { createLogger, LevelControl } from "../../core/log.ts";
import { settingsHelp } from "../../core/settings.ts";
import { shutdownSignals } from "../../core/signals.ts";
import { loadServerConfig, locationSettings, serverSettings } from "../wiring/config.ts";
import { startControlPlane } from "../wiring/serve.ts";
import { parseFlags } from "../../core/flags.ts";

export const serverCommand: Command = {
  name: "server",
  summary: "Run the control plane",
  async run(argv) {
    const { values } = parseFlags(argv, [locationSettings, serverSettings]);
    if (values.help) {
      console.log(
        `Usage: llmgw server [options]\n\nRuns the control plane: /v1 router, /api/v1 admin API, health.\n` +
          `Settings come from flags, then env, then DATA/server.yaml, then defaults.\n\n` +
          settingsHelp({ ...locationSettings, ...serverSettings }),
      );
      return 0;
    }
    const config = await loadServerConfig({ flags: values, env: Deno.env.toObject() });
    const logLevel = new LevelControl(config.logLevel);
    const logger = createLogger({ level: logLevel, format: config.logFormat });
    const cp = await startControlPlane(config, { logger, logLevel });
    console.log(`llmgw control plane on ${cp.url}`);
    if (cp.clusterUrls) console.log(`llmgw cluster listener on ${cp.clusterUrls.join(", ")}`);
    const signals = shutdownSignals();
    const sig = await signals.requested;
    logger.info("shutting down", { signal: sig });
    // A second signal cuts what is still open instead of waiting out shutdown_grace_ms.
    void signals.hurried.then(() => cp.cutRequests());
    await cp.close();
    return 0;
  },
};
