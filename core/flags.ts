/** Flag handling shared by every mode's command line (server, up, agent, join, ctl). */
import { parseArgs } from "node:util";
import { UsageError } from "./command.ts";
import { didYouMean } from "./suggest.ts";
import { parseArgsOptions, type SettingDefs } from "./settings.ts";

/**
 * Parses argv against settings (all string flags) plus command-specific extras. A caller whose
 * extras declare a `multiple` flag names `string[]` in V: that flag reads as a list.
 */
export function parseFlags<
  V extends string | boolean | string[] | undefined = string | boolean | undefined,
>(
  argv: string[],
  defs: SettingDefs[],
  extra: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = {},
): { values: Record<string, V>; positionals: string[] } {
  const options = Object.assign({}, ...defs.map(parseArgsOptions), extra, {
    help: { type: "boolean" as const, short: "h" },
  });
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
    return {
      values: values as Record<string, V>,
      positionals,
    };
  } catch (e) {
    throw new UsageError(flagError((e as Error).message, Object.keys(options)));
  }
}

/**
 * node:util's words for a flag it does not know, shortened to one line that names the nearest
 * known flag; its other messages (a value missing) stay as they are.
 */
export function flagError(message: string, known: readonly string[]): string {
  const m = /^Unknown option '(-{1,2})([^']*)'/.exec(message);
  if (!m) return message;
  const given = `${m[1]}${m[2]}`;
  return `unknown flag '${given}'${didYouMean(m[2]!, known, (f) => `--${f}`)}`;
}
