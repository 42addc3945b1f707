/**
 * `llmgw ctl`: the admin API from a terminal, one file per area. It finds the server and admin
 * token from the data directory (server.yaml's listen, admin.token), or takes --url and --token.
 */
import { HTTPError, NetworkError } from "ky";
import type { Command } from "../../../core/command.ts";
import { UsageError } from "../../../core/command.ts";
import { locationSettings } from "../../config.ts";
import { parseFlags } from "../../../core/flags.ts";
import { type Area, connect, ctlSettings } from "./client.ts";
import { keysArea } from "./keys.ts";
import { limitsArea } from "./limits.ts";
import { peopleArea } from "./people.ts";
import { auditArea, modelsArea, pricesArea, usageArea } from "./records.ts";
import { orgsArea, projectsArea, teamsArea } from "./tree.ts";
import { ctlNodes, nodesFlags, nodesHelp } from "../ctl_nodes.ts";
import { ctlModels, modelFlags, modelHelp } from "../ctl_models.ts";
import { ctlBackup, ctlConfig, ctlNotifyTest, ctlUsage, opsFlags, opsHelp } from "../ctl_ops.ts";

const areas: Area[] = [
  orgsArea,
  teamsArea,
  projectsArea,
  peopleArea,
  keysArea,
  limitsArea,
  auditArea,
  usageArea,
  modelsArea,
  pricesArea,
];

const help = `Usage: llmgw ctl <area> <verb> [options] [--json]

${areas.map((a) => a.help).join("\n")}
${nodesHelp}
${modelHelp}
${opsHelp}

Options: --data DIR, --url URL, --token TOKEN (env LLMGW_ADMIN_TOKEN), --json (machine-readable)`;

const stringFlags = [
  "name",
  "expires-at",
  "expires-in",
  "limit",
  "org",
  "team",
  "project",
  "person",
  "key",
  "rpm",
  "tpm",
  "budget-day",
  "budget-month",
  "budget-day-tokens",
  "budget-month-tokens",
  "models",
  "max-key-ttl",
  "role",
  "email",
  "display-name",
  "password",
  "state",
  "since",
  "actor",
  "target",
  "prompt",
  "completion",
  "cached",
];

export const ctlCommand: Command = {
  name: "ctl",
  summary: "Admin API from a terminal",
  async run(argv) {
    const { values, positionals } = parseFlags(argv, [locationSettings, ctlSettings], {
      json: { type: "boolean" },
      global: { type: "boolean" },
      service: { type: "boolean" },
      ...Object.fromEntries(stringFlags.map((f) => [f, { type: "string" as const }])),
      ...nodesFlags,
      ...modelFlags,
      ...opsFlags,
    });
    if (values.help || positionals.length === 0) {
      console.log(help);
      return values.help ? 0 : 2;
    }
    const [areaName, verbName = "list", ...args] = positionals;
    const area = areas.find((a) => a.name === areaName);
    const verb = area?.verbs[verbName];
    // Nodes and models (`model`, `replicas`, `restart`) have command trees of their own.
    const own = areaName === "nodes" || areaName === "model" || areaName === "replicas" ||
      areaName === "weights" ||
      areaName === "restart" || areaName === "backup" || areaName === "config" ||
      areaName === "notify" || (areaName === "usage" && positionals.length === 1);
    if (!own && (!area || !verb)) {
      throw new UsageError(`unknown command 'ctl ${positionals.join(" ")}'\n\n${help}`);
    }
    const api = await connect(values);
    const json = values.json === true;
    try {
      if (areaName === "nodes") return await ctlNodes(api, json, positionals.slice(1), values);
      // `ctl usage` alone sums usage for finance; `ctl usage list` shows recent rows.
      if (areaName === "usage") return await ctlUsage(api, values, json);
      if (areaName === "backup") return await ctlBackup(api, positionals[1]);
      if (areaName === "config") return await ctlConfig(api, positionals.slice(1), json);
      if (areaName === "notify") return await ctlNotifyTest(api, json);
      if (own) return await ctlModels(api, json, positionals, values);
      return await verb!({ api, json, values, args });
    } catch (e) {
      if (e instanceof HTTPError) {
        const body = e.data as { error?: { message?: string } } | undefined;
        console.error(`llmgw ctl: ${body?.error?.message ?? `HTTP ${e.response.status}`}`);
        return 1;
      }
      if (e instanceof NetworkError) {
        console.error(`llmgw ctl: cannot reach the control plane at ${e.request.url}`);
        return 1;
      }
      throw e;
    }
  },
};
