/**
 * Progress of one fetch, for the set as a whole: a 46 GB shard of a 188 GB set is reported as
 * part of the 188 GB, never as the whole download. A size that is not known stays unknown.
 */
import type { Clock } from "../clock.ts";

export interface FetchProgress {
  /** What is being fetched, as `describeSource` names it (no credentials). */
  source: string;
  /** "fetching" while bytes arrive; "checking" while the set's files are hashed after the last byte. */
  phase: "fetching" | "checking";
  bytesDone: number;
  /** Null when the size is not known: then only bytes are shown, never an invented percent. */
  bytesTotal: number | null;
}

export type ProgressListener = (p: FetchProgress) => void;

/** Whole percent done, or null when the total is unknown. */
export function percentOf(p: FetchProgress): number | null {
  if (p.bytesTotal === null) return null;
  if (p.bytesTotal === 0) return 100;
  return Math.min(100, Math.floor((p.bytesDone / p.bytesTotal) * 100));
}

/**
 * Fans progress out to every waiter of one fetch, at most once per interval (a few hundred GB
 * would otherwise be tens of thousands of callbacks) and always at a phase's start and end.
 */
export class ProgressFanOut {
  readonly listeners = new Set<ProgressListener>();
  #last = -Infinity;
  #lastPhase: FetchProgress["phase"] | null = null;

  constructor(private readonly clock: Clock, private readonly intervalMs: number) {}

  report(p: FetchProgress, force = false): void {
    const now = this.clock.now();
    if (!force && p.phase === this.#lastPhase && now - this.#last < this.intervalMs) return;
    this.#last = now;
    this.#lastPhase = p.phase;
    for (const l of this.listeners) {
      try {
        l(p);
      } catch {
        // A listener's failure is its own; the fetch goes on.
      }
    }
  }
}
