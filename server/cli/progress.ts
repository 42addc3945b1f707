/**
 * One progress line for long work on a terminal (`mirror add --wait`, `model serve`, `up`):
 * with a size, the share done, the bytes, the rate and the time left; without one, what it waits
 * for and for how long. When stdout is not a terminal it draws nothing, so a script's output
 * and a log stay free of carriage returns; `say` lines are printed either way.
 */
import { formatBytes } from "../../core/weights/disk.ts";

export interface ProgressOut {
  isTerminal(): boolean;
  write(text: string): void;
  /** The terminal's width; lines are cut to fit, so one never wraps and a redraw stays on one line. */
  columns(): number;
}

const encoder = new TextEncoder();

export const stdoutProgressOut: ProgressOut = {
  isTerminal: () => Deno.stdout.isTerminal(),
  write: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
  // A pseudo-terminal nobody sized (under `script`, over some ssh) reports 0 columns.
  columns: () => {
    try {
      return Deno.consoleSize().columns || 80;
    } catch {
      return 80;
    }
  },
};

/** How far back the rate looks: long enough to smooth bursts, short enough to follow a change. */
const rateWindowMs = 10_000;

export class Progress {
  readonly #out: ProgressOut;
  readonly #now: () => number;
  readonly #on: boolean;
  #samples: { t: number; done: number }[] = [];
  #drawn = false;
  #line = "";
  #waiting: { what: string; since: number } | undefined;

  constructor(opts: { out?: ProgressOut; now?: () => number } = {}) {
    this.#out = opts.out ?? stdoutProgressOut;
    this.#now = opts.now ?? (() => performance.now());
    this.#on = this.#out.isTerminal();
  }

  /** Whether lines are drawn (stdout is a terminal). */
  get drawing(): boolean {
    return this.#on;
  }

  /** `label  ███░░░ 42%  1.7 GiB of 4.0 GiB  35.2 MiB/s  1 min 7 s left`. */
  bytes(label: string, done: number, total?: number): void {
    this.#waiting = undefined;
    const t = this.#now();
    const last = this.#samples.at(-1);
    if (last && done < last.done) this.#samples = []; // a new file, or a restart from zero
    this.#samples.push({ t, done });
    while (this.#samples.length > 2 && t - this.#samples[0]!.t > rateWindowMs) {
      this.#samples.shift();
    }
    this.#draw(progressLine(label, done, total, this.#rate()));
  }

  /** `waiting for placement … 12 s`: what it waits for, timed from when that began. */
  waiting(what: string): void {
    this.#samples = [];
    const t = this.#now();
    if (this.#waiting?.what !== what) this.#waiting = { what, since: t };
    this.#draw(`${what} … ${duration((t - this.#waiting.since) / 1000)}`);
  }

  /** A line that stays: above the progress line on a terminal, a plain line elsewhere. */
  say(line: string): void {
    if (this.#on && this.#drawn) this.#out.write("\r\x1b[2K");
    this.#drawn = false;
    console.log(line);
  }

  /**
   * Runs `write` (a log line on the same terminal) with the progress line out of its way:
   * cleared first, drawn again after.
   */
  around(write: () => void): void {
    if (!this.#on || !this.#drawn) return write();
    this.#out.write("\r\x1b[2K");
    write();
    this.#out.write(this.#line);
  }

  /** Clears the progress line (the caller says how it ended). */
  end(): void {
    if (this.#on && this.#drawn) this.#out.write("\r\x1b[2K");
    this.#drawn = false;
  }

  #rate(): number | undefined {
    const first = this.#samples[0], last = this.#samples.at(-1);
    if (!first || !last || last.t - first.t < 500) return undefined;
    return (last.done - first.done) / ((last.t - first.t) / 1000);
  }

  #draw(line: string): void {
    if (!this.#on) return;
    const width = Math.max(20, this.#out.columns() - 1);
    this.#line = line.length > width ? line.slice(0, width - 1) + "…" : line;
    this.#out.write(`\r\x1b[2K${this.#line}`);
    this.#drawn = true;
  }
}

/** The text of one progress line; `rate` in bytes a second, unknown until there is a window. */
export function progressLine(
  label: string,
  done: number,
  total: number | undefined,
  rate: number | undefined,
): string {
  const parts = [label];
  if (total !== undefined && total > 0) {
    const share = Math.min(1, done / total);
    parts.push(`${bar(share)} ${Math.floor(share * 100)}%`);
    parts.push(`${formatBytes(done)} of ${formatBytes(total)}`);
  } else parts.push(formatBytes(done));
  if (rate !== undefined) {
    parts.push(`${formatBytes(Math.round(rate))}/s`);
    if (total !== undefined && total > done) {
      parts.push(rate > 0 ? `${duration((total - done) / rate)} left` : "stalled");
    }
  }
  return parts.join("  ");
}

function bar(share: number, width = 20): string {
  const full = Math.round(share * width);
  return "█".repeat(full) + "░".repeat(width - full);
}

/** `45 s`, `3 min 5 s`, `2 h 10 min`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
