/**
 * The last lines an engine printed (stdout and stderr together), kept so a failed start can say why.
 * Bounded in lines and bytes because an engine can print without end. Secrets given to it are
 * replaced before anything is stored, so the tail is safe to log and to put in errors.
 */
export class OutputTail {
  #lines: string[] = [];
  #bytes = 0;
  #partial = "";

  constructor(
    private readonly secrets: readonly string[] = [],
    private readonly maxLines = 200,
    private readonly maxBytes = 64 * 1024,
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

  #add(line: string): void {
    let clean = line;
    for (const s of this.secrets) if (s) clean = clean.replaceAll(s, "[redacted]");
    if (clean.length > this.maxBytes) clean = clean.slice(-this.maxBytes);
    this.#lines.push(clean);
    this.#bytes += clean.length + 1;
    while (this.#lines.length > this.maxLines || this.#bytes > this.maxBytes) {
      this.#bytes -= (this.#lines.shift()?.length ?? 0) + 1;
    }
  }

  /** The kept output, the unfinished last line included. */
  text(): string {
    let partial = this.#partial;
    for (const s of this.secrets) if (s) partial = partial.replaceAll(s, "[redacted]");
    return [...this.#lines, ...(partial ? [partial] : [])].slice(-this.maxLines).join("\n");
  }
}
