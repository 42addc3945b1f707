/**
 * What admitted requests hold until they settle, in memory: the worst-case cost and tokens on
 * every level above their key, and how many run per level and model (for `max_parallel`, and for
 * the slot queue's fair share). An entry goes when nothing is held there, so the maps stay as
 * small as what is in flight.
 */
import type { Scope } from "../tenancy/tenancy.ts";

const nameOf = (s: Scope) => `${s.kind}:${s.id}`;

export class Holds {
  readonly #held = new Map<string, { micros: number; tokens: number; n: number }>();
  readonly #running = new Map<string, number>();

  held(scope: Scope): { micros: number; tokens: number } {
    return this.#held.get(nameOf(scope)) ?? { micros: 0, tokens: 0 };
  }

  running(scope: Scope, model: string): number {
    return this.#running.get(`${nameOf(scope)}|${model}`) ?? 0;
  }

  take(scopes: Scope[], model: string, h: { micros: number; tokens: number }): void {
    for (const s of scopes) {
      const name = nameOf(s);
      const cur = this.#held.get(name) ?? { micros: 0, tokens: 0, n: 0 };
      this.#held.set(name, {
        micros: cur.micros + h.micros,
        tokens: cur.tokens + h.tokens,
        n: cur.n + 1,
      });
      const r = `${name}|${model}`;
      this.#running.set(r, (this.#running.get(r) ?? 0) + 1);
    }
  }

  give(scopes: Scope[], model: string, h: { micros: number; tokens: number }): void {
    for (const s of scopes) {
      const name = nameOf(s);
      const cur = this.#held.get(name);
      if (cur) {
        // Counted by requests, so rounding can never leave a level holding money nobody holds.
        if (cur.n <= 1) this.#held.delete(name);
        else {this.#held.set(name, {
            micros: cur.micros - h.micros,
            tokens: cur.tokens - h.tokens,
            n: cur.n - 1,
          });}
      }
      const r = `${name}|${model}`;
      const n = (this.#running.get(r) ?? 0) - 1;
      if (n <= 0) this.#running.delete(r);
      else this.#running.set(r, n);
    }
  }
}
