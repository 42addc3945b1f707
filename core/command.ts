/** One entry of the command tree in main.ts. Each command parses its own argv. */
import { parseArgs, type ParseArgsConfig } from "node:util";

export interface Command {
  readonly name: string;
  /** One line, shown by `llmgw --help`. */
  readonly summary: string;
  /** Returns the process exit code. */
  run(argv: string[]): Promise<number>;
}

/** Raised for wrong command-line use; main.ts prints the message and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/**
 * Parses `argv` against `options` with no positionals; wrong use is a `UsageError` that points
 * at `<command> --help`.
 */
export function parseStrict<O extends NonNullable<ParseArgsConfig["options"]>>(
  command: string,
  argv: string[],
  options: O,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false });
  } catch (e) {
    throw new UsageError(`${(e as Error).message} (see ${command} --help)`);
  }
}
