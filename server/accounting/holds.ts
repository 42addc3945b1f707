/**
 * What admitted requests hold until they settle, in memory: the worst-case cost and tokens on
 * every level above their key, and how many run per level and model (for `max_parallel`, and for
 * the slot queue's fair share). A level's entry goes when nothing is held there, so the map stays
 * as small as what is in flight.
 */
import type { Scope } from "../tenancy/tenancy.ts";

interface Level {
  micros: number;
  tokens: number;
  /** Requests holding here; the entry goes at 0, so rounding can never leave money held. */
  n: number;
  running: Map<string, number>;
}

const nameOf = (s: Scope) => `${s.kind}:${s.id}`;
const nothing = { micros: 0, tokens: 0 };

export class Holds {
  readonly #levels = new Map<string, Level>();

  held(scope: Scope): { micros: number; tokens: number } {
    return this.#levels.get(nameOf(scope)) ?? nothing;
  }

  running(scope: Scope, model: string): number {
    return this.#levels.get(nameOf(scope))?.running.get(model) ?? 0;
  }

  take(scopes: Scope[], model: string, h: { micros: number; tokens: number }): void {
    for (const s of scopes) {
      const name = nameOf(s);
      let level = this.#levels.get(name);
      if (!level) {
        level = { micros: 0, tokens: 0, n: 0, running: new Map() };
        this.#levels.set(name, level);
      }
      level.micros += h.micros;
      level.tokens += h.tokens;
      level.n++;
      level.running.set(model, (level.running.get(model) ?? 0) + 1);
    }
  }

  give(scopes: Scope[], model: string, h: { micros: number; tokens: number }): void {
    for (const s of scopes) {
      const name = nameOf(s);
      const level = this.#levels.get(name);
      if (!level) continue;
      if (--level.n <= 0) {
        this.#levels.delete(name);
        continue;
      }
      level.micros -= h.micros;
      level.tokens -= h.tokens;
      const left = (level.running.get(model) ?? 0) - 1;
      if (left <= 0) level.running.delete(model);
      else level.running.set(model, left);
    }
  }
}
