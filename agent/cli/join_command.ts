/** `llmgw join <code>`: join this machine to a cluster, then run its agent. */
import type { Command } from "../../core/command.ts";
import { UsageError } from "../../core/command.ts";
import { parseFlags } from "../../core/flags.ts";
import { fromFlagsOrEnv, resolveSettings } from "../../core/settings.ts";
import { agentLocation, agentSettings } from "../agent_config.ts";
import { joinCluster, JoinError } from "../channel/join.ts";
import { agentHelp, runAgent } from "./agent_command.ts";

const help =
  `Usage: llmgw join <code> [--control URL] [--data DIR] [--name NAME] [--no-run] [agent options]

Trades a one-time join code (from 'llmgw ctl nodes join-code') for this node's credential, kept in
DATA/node.credential (mode 0600) with the cluster CA (DATA/ca.pem) and DATA/agent.yaml, then runs
the agent ('llmgw agent --data DIR' runs it later). The code carries the control planes' URLs and
the fingerprint of the cluster's CA; --control dials another URL of the same cluster. The code
may come from env LLMGW_JOIN_CODE instead, which keeps it out of the process list.

  --control URL   The control plane's cluster URL (https) instead of those in the code
  --no-run        Join only; do not start the agent
${agentHelp}`;

export const joinCommand: Command = {
  name: "join",
  summary: "Join this machine to a cluster with a join code, then run its agent",
  async run(argv) {
    const { values, positionals } = parseFlags(argv, [agentLocation, agentSettings], {
      control: { type: "string" },
      "no-run": { type: "boolean" },
    });
    if (values.help) {
      console.log(help);
      return 0;
    }
    const code = positionals[0] ?? Deno.env.get("LLMGW_JOIN_CODE");
    if (!code) throw new UsageError(`join needs the code\n\n${help}`);
    const env = Deno.env.toObject();
    const { dataDir } = resolveSettings(agentLocation, { flags: values, env });
    const resolved = resolveSettings(agentSettings, { flags: values, env });
    const { name } = resolved;
    // What was given on this command line is kept, so a later `llmgw agent` runs the same way.
    const given = fromFlagsOrEnv(agentSettings, { flags: values });
    const settings = Object.fromEntries(
      [...given].filter((k) => k !== "name").map((k) => [k, resolved[k as keyof typeof resolved]]),
    );
    let joined;
    try {
      joined = await joinCluster({
        code,
        dataDir,
        name: name || Deno.hostname(),
        settings,
        ...(typeof values.control === "string" ? { controlUrl: values.control } : {}),
      });
    } catch (e) {
      if (e instanceof JoinError) {
        console.error(`llmgw join: ${e.message}`);
        return 1;
      }
      throw e;
    }
    console.log(`Joined as node ${joined.name} (${joined.nodeId}); credential in ${dataDir}`);
    if (values["no-run"]) return 0;
    const { control: _c, "no-run": _n, ...agentFlags } = values;
    // The agent runs under the name the control plane gave.
    return await runAgent({ ...agentFlags, name: joined.name });
  },
};
