/** `llmgw agent`: run this node's agent from DATA/agent.yaml and the credential `join` left. */
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { createLogger } from "../../core/log.ts";
import { settingsHelp } from "../../core/settings.ts";
import { shutdownSignals } from "../../core/signals.ts";
import { parseFlags } from "../../core/flags.ts";
import { Agent } from "../agent.ts";
import { agentLocation, agentSettings, loadAgentConfig } from "../agent_config.ts";
import { readNodeFiles } from "../channel/node_files.ts";

export const agentHelp =
  `Settings come from flags, then env, then DATA/agent.yaml, then defaults.\n\n` +
  settingsHelp({ ...agentLocation, ...agentSettings });

export const agentCommand: Command = {
  name: "agent",
  summary: "Run a node's agent",
  async run(argv) {
    const { values } = parseFlags(argv, [agentLocation, agentSettings]);
    if (values.help) {
      console.log(
        `Usage: llmgw agent [--data DIR] [options]\n\nRuns a node: dials the control plane, ` +
          `reports the machine, runs the engines it is told to. SIGTERM ends the agent and ` +
          `leaves its engines running for the next one to adopt; SIGINT (Ctrl-C) stops them ` +
          `first.\n${agentHelp}`,
      );
      return 0;
    }
    return await runAgent(values);
  },
};

/**
 * Runs until SIGINT or SIGTERM, or until the node's credential is refused. SIGTERM (what systemd
 * sends to restart or stop the unit, which has KillMode=process) leaves the engines running for
 * the next agent to adopt; SIGINT (Ctrl-C) stops them first.
 */
export async function runAgent(
  flags: Record<string, string | boolean | undefined>,
): Promise<number> {
  const config = await loadAgentConfig({ flags, env: Deno.env.toObject() });
  let files;
  try {
    files = await readNodeFiles(config.dataDir);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const logger = createLogger({ level: config.logLevel });
  let agent: Agent;
  try {
    agent = new Agent({ config, logger, ...files });
    await agent.start();
  } catch (e) {
    if (e instanceof TypeError || e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
  console.log(`llmgw agent running (data ${config.dataDir}), dialing ${config.controlUrls}`);
  const signals = shutdownSignals();
  // A second signal kills the engines being stopped instead of waiting out their grace.
  void signals.hurried.then(() => agent.hurry());
  const outcome = await Promise.race([
    signals.requested.then((sig) => ({ signal: sig })),
    agent.ended,
  ]);
  if ("revoked" in outcome) {
    console.error(
      `llmgw agent: ${outcome.reason}\nThis node was removed from the cluster; its engines were stopped.`,
    );
    await agent.stop();
    return 3;
  }
  const keepEngines = outcome.signal === "SIGTERM";
  logger.info(keepEngines ? "shutting down; engines keep running" : "shutting down", {
    signal: outcome.signal,
  });
  await agent.stop({ keepEngines });
  return 0;
}
