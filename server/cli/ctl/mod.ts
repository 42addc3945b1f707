/**
 * `llmgw ctl`: the admin API from a terminal, one file per noun, each a table of verbs with
 * their flags and help. It finds the server and admin token from the data directory
 * (server.yaml's listen, admin.token), or takes --url and --token.
 */
import { HTTPError, NetworkError } from "ky";
import type { Command } from "../../../core/command.ts";
import { UsageError } from "../../../core/command.ts";
import { locationSettings } from "../../config.ts";
import { parseFlags } from "../../../core/flags.ts";
import { audit } from "./audit.ts";
import { backup } from "./backup.ts";
import {
  connect,
  ctlSettings,
  type FlagSpecs,
  type Noun,
  type Values,
  type Verb,
} from "./client.ts";
import { config } from "./config.ts";
import { guard } from "./guard.ts";
import { keys } from "./keys.ts";
import { limits } from "./limits.ts";
import { mcp } from "./mcp.ts";
import { model, models, replicas, restart } from "./models.ts";
import { nodes } from "./nodes.ts";
import { notify } from "./notify.ts";
import { people } from "./people.ts";
import { prices } from "./prices.ts";
import { scim } from "./scim.ts";
import { orgs, projects, teams } from "./tree.ts";
import { usage } from "./usage.ts";
import { weights } from "./weights.ts";

/** In the order `ctl --help` lists them. */
export const nouns: Noun[] = [
  orgs,
  teams,
  projects,
  people,
  keys,
  limits,
  audit,
  usage,
  models,
  prices,
  guard,
  nodes,
  model,
  replicas,
  restart,
  weights,
  backup,
  config,
  notify,
  mcp,
  scim,
];

const verbsOf = (n: Noun): Verb[] => [...(n.bare ? [n.bare] : []), ...Object.values(n.verbs)];

/** `ctl --help`: each noun's verbs' lines (its bare one first), then its note. */
export function helpText(list: Noun[]): string {
  const lines = list.flatMap((n) => [...verbsOf(n).map((v) => v.help), n.note]);
  return `Usage: llmgw ctl <area> <verb> [options] [--json]

${lines.filter((l) => l !== undefined).join("\n")}

Options: --data DIR, --url URL, --token TOKEN (env LLMGW_ADMIN_TOKEN), --json (machine-readable)`;
}

const help = helpText(nouns);

/**
 * Every verb's flags in one set: any flag is accepted on any command, so each verb reads only
 * its own. Two verbs that declare one flag must agree on its kind, or parsing would depend on
 * which came last.
 */
export function allFlags(list: Noun[]): FlagSpecs {
  const all: FlagSpecs = { json: { type: "boolean" } };
  for (const noun of list) {
    for (const verb of verbsOf(noun)) {
      for (const [flag, spec] of Object.entries(verb.flags ?? {})) {
        const seen = all[flag];
        if (
          seen &&
          (seen.type !== spec.type || seen.short !== spec.short || seen.multiple !== spec.multiple)
        ) {
          throw new Error(`ctl ${noun.name}: --${flag} is declared twice, differently`);
        }
        all[flag] = spec;
      }
    }
  }
  return all;
}

const flags = allFlags(nouns);

/**
 * `ctl NOUN VERB ARGS…`. Without a verb, the noun's `bare` verb or `list`; a noun without verbs
 * takes every word after it as an argument.
 */
export function pick(
  list: Noun[],
  positionals: string[],
): { verb: Verb; args: string[] } | undefined {
  const [nounName, word, ...rest] = positionals;
  const noun = list.find((n) => n.name === nounName);
  if (!noun) return undefined;
  if (word === undefined) {
    const verb = noun.bare ?? (Object.hasOwn(noun.verbs, "list") ? noun.verbs.list : undefined);
    return verb && { verb, args: [] };
  }
  if (Object.hasOwn(noun.verbs, word)) return { verb: noun.verbs[word]!, args: rest };
  if (noun.bare && Object.keys(noun.verbs).length === 0) {
    return { verb: noun.bare, args: [word, ...rest] };
  }
  return undefined;
}

export const ctlCommand: Command = {
  name: "ctl",
  summary: "Admin API from a terminal",
  async run(argv) {
    const { values, positionals } = parseFlags<Values[string]>(argv, [
      locationSettings,
      ctlSettings,
    ], flags);
    if (values.help || positionals.length === 0) {
      console.log(help);
      return values.help ? 0 : 2;
    }
    const picked = pick(nouns, positionals);
    if (!picked) throw new UsageError(`unknown command 'ctl ${positionals.join(" ")}'\n\n${help}`);
    const api = await connect(values);
    try {
      return await picked.verb.run({ api, json: values.json === true, values, args: picked.args });
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
