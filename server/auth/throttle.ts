/**
 * Growing delays per name (an address, an account, a device): the first `free` failures cost
 * nothing, then each one doubles the wait before the next attempt, from `baseMs` up to `maxMs`.
 * Never a hard lock: the wait is bounded, and `forgetMs` after the last failure the name starts
 * afresh. Attempts refused while a name waits are not counted, so hammering does not make the
 * wait longer. The table is bounded (`capacity`, stalest out first).
 */
import type { Clock } from "../../core/clock.ts";
import { BoundedMap } from "../../core/bounded_map.ts";

export interface DelayOptions {
  free: number;
  baseMs: number;
  maxMs: number;
  forgetMs: number;
  capacity: number;
}

export class Throttle {
  readonly #names: BoundedMap<string, { count: number; last: number }>;

  constructor(private readonly deps: { clock: Clock } & DelayOptions) {
    this.#names = new BoundedMap(deps.capacity);
  }

  /** Milliseconds to wait before `name` may try again; 0 when it may try now. */
  waitFor(name: string): number {
    const e = this.#names.get(name);
    if (!e) return 0;
    const now = this.deps.clock.now();
    if (now - e.last >= this.deps.forgetMs) {
      this.#names.delete(name);
      return 0;
    }
    if (e.count < this.deps.free) return 0;
    const delay = Math.min(this.deps.maxMs, this.deps.baseMs * 2 ** (e.count - this.deps.free));
    return Math.max(0, e.last + delay - now);
  }

  fail(name: string): void {
    const now = this.deps.clock.now();
    const e = this.#names.get(name);
    const fresh = !e || now - e.last >= this.deps.forgetMs;
    this.#names.set(name, { count: fresh ? 1 : e.count + 1, last: now });
  }

  /** Takes back one failure (an attempt counted before it was judged, that succeeded). */
  forgive(name: string): void {
    const e = this.#names.get(name);
    if (!e) return;
    if (e.count <= 1) this.#names.delete(name);
    else this.#names.set(name, { count: e.count - 1, last: e.last });
  }

  clear(name: string): void {
    this.#names.delete(name);
  }

  get size(): number {
    return this.#names.size;
  }
}
