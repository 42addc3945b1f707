/**
 * The last lines an engine printed (stdout and stderr together): what a failed start says why
 * with, and the live log a model's page shows. Bounded in lines and bytes because an engine can
 * print without end. Secrets given to it, and anything that looks like a credential, are replaced
 * before anything is stored (redact_line.ts), so the tail is safe to log, to put in errors and to
 * send to the control plane.
 */
import { redactLine } from "./redact_line.ts";

export class OutputTail {
  #lines: string[] = [];
  #bytes = 0;
  #partial = "";

  constructor(
    private readonly secrets: readonly string[] = [],
    private readonly maxLines = 500,
    private readonly maxBytes = 128 * 1024,
  ) {}

  /** Adds a chunk of output; a line split across chunks is joined. */
  push(chunk: string): void {
    const parts = (this.#partial + chunk).split("\n");
    this.#partial = parts.pop() ?? "";
    // A line with no end in sight is cut rather than held without bound.
    if (this.#partial.length > this.maxBytes) {
      parts.push(this.#partial);
      this.#partial = "";
    }
    for (const line of parts) this.#add(line.replace(/\r$/, ""));
  }

  /** A line of llmgw's own between the engine's (a start, an exit), kept in order with them. */
  note(line: string): void {
    this.push(`${this.#partial ? "\n" : ""}${line}\n`);
  }

  #add(line: string): void {
    let clean = redactLine(line, this.secrets);
    if (clean.length > this.maxBytes) clean = clean.slice(-this.maxBytes);
    this.#lines.push(clean);
    this.#bytes += clean.length + 1;
    while (this.#lines.length > this.maxLines || this.#bytes > this.maxBytes) {
      this.#bytes -= (this.#lines.shift()?.length ?? 0) + 1;
    }
  }

  /** The last `n` lines kept (all by default), the unfinished last line included. */
  lines(n = this.maxLines): string[] {
    const partial = this.#partial ? [redactLine(this.#partial, this.secrets)] : [];
    if (n <= 0) return [];
    return [...this.#lines, ...partial].slice(-Math.min(n, this.maxLines));
  }

  /** The kept output as one text. */
  text(): string {
    return this.lines().join("\n");
  }
}
