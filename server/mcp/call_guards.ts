/**
 * What stands between a caller and a company server: a calls-per-minute limit per caller and
 * server, and a breaker per server (five failures in a row take it out for a minute, its tools
 * gone from the list). Both live in each control plane's memory: a breaker is about what this
 * process sees of the server, and a rate held per process errs only towards fewer refusals.
 */
import type { Clock } from "../../core/clock.ts";

export const breakerFailures = 5;
export const breakerOpenMs = 60_000;
const windowMs = 60_000;

export class CallGuards {
  readonly #failures = new Map<string, number>();
  readonly #openUntil = new Map<string, number>();
  readonly #calls = new Map<string, number[]>();

  constructor(private readonly clock: Clock) {}

  /** True while the server's breaker is open: it is neither listed nor called. */
  isOpen(server: string): boolean {
    const until = this.#openUntil.get(server);
    if (until === undefined) return false;
    if (this.clock.now() < until) return true;
    // Closed again after its minute; one more failure does not reopen it at once.
    this.#openUntil.delete(server);
    this.#failures.delete(server);
    return false;
  }

  succeeded(server: string): void {
    this.#failures.delete(server);
  }

  failed(server: string): void {
    const n = (this.#failures.get(server) ?? 0) + 1;
    this.#failures.set(server, n);
    if (n >= breakerFailures) this.#openUntil.set(server, this.clock.now() + breakerOpenMs);
  }

  /**
   * Takes one call of `rate` per minute for the caller on the server; the seconds to wait when
   * none is left, else null.
   */
  take(caller: string, server: string, rate: number | null): number | null {
    if (rate === null) return null;
    const key = `${caller}\u0000${server}`;
    const now = this.clock.now();
    const recent = (this.#calls.get(key) ?? []).filter((t) => t > now - windowMs);
    if (recent.length >= rate) {
      this.#calls.set(key, recent);
      return Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
    }
    recent.push(now);
    this.#calls.set(key, recent);
    return null;
  }
}
