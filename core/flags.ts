/** Flag handling shared by every mode's command line (server, up, agent, join, ctl). */
import { parseArgs } from "node:util";
import { UsageError } from "./command.ts";
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
  try {
    const options = Object.assign({}, ...defs.map(parseArgsOptions), extra, {
      help: { type: "boolean" as const, short: "h" },
    });
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true });
    return {
      values: values as Record<string, V>,
      positionals,
    };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
