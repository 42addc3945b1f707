/**
 * `llmgw ctl`: the admin API from a terminal, one file per noun, each a table of verbs with
 * their flags and help. It finds the server and admin token from the data directory
 * (server.yaml's listen, admin.token), or takes --url and --token.
 */
import { HTTPError, NetworkError } from "ky";
import type { Command } from "../../../core/command.ts";
import { UsageError } from "../../../core/command.ts";
import { locationSettings } from "../../wiring/config.ts";
import { parseFlags } from "../../../core/flags.ts";
import { didYouMean } from "../../../core/suggest.ts";
import { examples } from "./examples.ts";
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
import { kb } from "./kb.ts";
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
  kb,
  scim,
];

const verbsOf = (n: Noun): Verb[] => [...(n.bare ? [n.bare] : []), ...Object.values(n.verbs)];

const globalOptions =
  `Options: --data DIR, --url URL, --token TOKEN (env LLMGW_ADMIN_TOKEN), --json (machine-readable)`;

/** The flags every ctl command takes, whatever its verb. */
const globalFlags = ["data", "url", "token", "json", "help"];

/** `ctl --help`: each noun's verbs' lines (its bare one first), then its note. */
export function helpText(list: Noun[]): string {
  const lines = list.flatMap((n) => [...verbsOf(n).map((v) => v.help), n.note]);
  return `Usage: llmgw ctl <area> <verb> [options] [--json]   (llmgw ctl <area> --help for examples)

${lines.filter((l) => l !== undefined).join("\n")}

${globalOptions}`;
}

/** A verb's name in its noun (`""` for the bare one). */
function verbName(noun: Noun, verb: Verb): string {
  if (verb === noun.bare) return "";
  return Object.entries(noun.verbs).find(([, v]) => v === verb)?.[0] ?? "";
}

/**
 * The help lines and examples of one verb; a verb without lines of its own (`uncordon`) shows
 * the sibling's that names it (`cordon|uncordon|drain`).
 */
function verbSection(noun: Noun, name: string): { lines: string[]; examples: string[] } {
  const verb = name === "" ? noun.bare : noun.verbs[name];
  const own = examples[noun.name]?.[name] ?? [];
  if (verb?.help) return { lines: [verb.help], examples: own };
  const sibling = Object.entries(noun.verbs).find(([n, v]) =>
    v.help && new RegExp(`\\b${n}\\b.*\\|${name}\\b|\\|${name}\\|`).test(v.help.split("\n")[0]!)
  );
  return {
    lines: sibling ? [sibling[1].help!] : [],
    examples: [...own, ...(sibling ? examples[noun.name]?.[sibling[0]] ?? [] : [])],
  };
}

/** `ctl NOUN --help`, or with a verb `ctl NOUN VERB --help`: its lines, then examples. */
export function nounHelp(noun: Noun, verb?: string): string {
  const names = verb !== undefined ? [verb] : [
    ...(noun.bare ? [""] : []),
    ...Object.keys(noun.verbs),
  ];
  const sections = names.map((n) => verbSection(noun, n));
  const lines = [...new Set(sections.flatMap((s) => s.lines))];
  const shown = [...new Set(sections.flatMap((s) => s.examples))];
  const usage = verb !== undefined
    ? `llmgw ctl ${[noun.name, verb].filter(Boolean).join(" ")} [options] [--json]`
    : `llmgw ctl ${noun.name} ${
      noun.bare && Object.keys(noun.verbs).length === 0 ? "" : "<verb> "
    }[options] [--json]`;
  return [
    `Usage: ${usage.replace(/  +/g, " ")}`,
    "",
    ...lines,
    ...(noun.note && verb === undefined ? [noun.note] : []),
    "",
    "Examples:",
    ...shown.map((e) => `  llmgw ${e}`),
    "",
    globalOptions,
  ].join("\n");
}

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

const help = helpText(nouns);
const flags = allFlags(nouns);

/**
 * `ctl NOUN VERB ARGS…`. Without a verb, the noun's `bare` verb or `list`; a noun without verbs
 * takes every word after it as an argument.
 */
export function pick(
  list: Noun[],
  positionals: string[],
): { noun: Noun; verb: Verb; args: string[] } | undefined {
  const [nounName, word, ...rest] = positionals;
  const noun = list.find((n) => n.name === nounName);
  if (!noun) return undefined;
  if (word === undefined) {
    const verb = noun.bare ?? (Object.hasOwn(noun.verbs, "list") ? noun.verbs.list : undefined);
    return verb && { noun, verb, args: [] };
  }
  if (Object.hasOwn(noun.verbs, word)) return { noun, verb: noun.verbs[word]!, args: rest };
  if (noun.bare && Object.keys(noun.verbs).length === 0) {
    return { noun, verb: noun.bare, args: [word, ...rest] };
  }
  return undefined;
}

/** One line for a noun or verb ctl does not know, naming the nearest one it does. */
export function unknownCommand(list: Noun[], positionals: string[]): string {
  const [nounName = "", word = ""] = positionals;
  const noun = list.find((n) => n.name === nounName);
  if (!noun) {
    const hint = didYouMean(nounName, list.map((n) => n.name), (n) => `ctl ${n}`);
    return `unknown area 'ctl ${nounName}'${hint} (llmgw ctl --help lists them)`;
  }
  const hint = didYouMean(word, Object.keys(noun.verbs), (v) => `ctl ${noun.name} ${v}`);
  return `unknown verb 'ctl ${noun.name} ${word}'${hint} (llmgw ctl ${noun.name} --help)`;
}

/**
 * A flag given that this verb does not read (another verb's): refused with the nearest of its
 * own, rather than ignored, since a typo'd flag ignored is a setting silently not made.
 */
export function strayFlag(noun: Noun, verb: Verb, values: Values): string | undefined {
  const own = [...globalFlags, ...Object.keys(verb.flags ?? {})];
  const given = Object.keys(values).filter((f) => values[f] !== undefined);
  const stray = given.find((f) => !own.includes(f));
  if (stray === undefined) return undefined;
  const name = [noun.name, verbName(noun, verb)].filter(Boolean).join(" ");
  return `ctl ${name} does not take --${stray}${didYouMean(stray, own, (f) => `--${f}`)} ` +
    `(llmgw ctl ${name} --help)`;
}

export const ctlCommand: Command = {
  name: "ctl",
  summary: "Admin API from a terminal",
  async run(argv) {
    const { values, positionals } = parseFlags<Values[string]>(argv, [
      locationSettings,
      ctlSettings,
    ], flags);
    if (positionals.length === 0) {
      console.log(help);
      return values.help ? 0 : 2;
    }
    const picked = pick(nouns, positionals);
    if (values.help) {
      const noun = nouns.find((n) => n.name === positionals[0]);
      if (!noun || (positionals.length > 1 && !picked)) {
        throw new UsageError(unknownCommand(nouns, positionals));
      }
      const verb = positionals.length > 1 && Object.keys(noun.verbs).length
        ? positionals[1]
        : undefined;
      console.log(nounHelp(noun, verb));
      return 0;
    }
    if (!picked) throw new UsageError(unknownCommand(nouns, positionals));
    const stray = strayFlag(picked.noun, picked.verb, values);
    if (stray) throw new UsageError(stray);
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
