/** One entry of the command tree in main.ts. Each command parses its own argv. */
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
