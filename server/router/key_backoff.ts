/**
 * A key whose requests keep making a model's engine fail is slowed, so that it, and not the
 * model, pays for them (fault_judge.ts never ejects the last replica for a 5xx). Past `free`
 * such requests in a window, each one more holds the key off the model for twice as long as the
 * last, up to `maxMs`; an answer that ends well forgives. Counted per key and model, in memory:
 * a retrying client (Codex CLI retries on its own) meets a 429 with Retry-After instead of the
 * engine.
 */
import { AppError } from "../../core/errors.ts";

export interface KeyBackoffOptions {
  /** Engine failures a key may cause in `windowMs` before it is held off. */
  free: number;
  windowMs: number;
  /** The longest hold. */
  maxMs: number;
  /** Keys remembered at most; the oldest go first. */
  maxEntries: number;
  now: () => number;
}

export const defaultKeyBackoff: Omit<KeyBackoffOptions, "now"> = {
  free: 5,
  windowMs: 10_000,
  maxMs: 30_000,
  maxEntries: 10_000,
};

interface Record {
  faults: number;
  firstAt: number;
  until: number;
  detail: string;
}

export class KeyBackoff {
  readonly #opts: KeyBackoffOptions;
  readonly #byKey = new Map<string, Record>();

  constructor(opts: Partial<KeyBackoffOptions> = {}) {
    this.#opts = { ...defaultKeyBackoff, now: () => performance.now(), ...opts };
  }

  /** Throws `request_backoff` (429, with Retry-After) while the key is held off the model. */
  check(keyId: string, model: string): void {
    const r = this.#byKey.get(`${keyId}\n${model}`);
    const now = this.#opts.now();
    if (!r || r.until <= now) return;
    const waitS = Math.max(1, Math.ceil((r.until - now) / 1000));
    throw new AppError(
      "request_backoff",
      {
        model,
        count: r.faults,
        reset: `${waitS} s`,
        detail: r.detail,
      },
      null,
      { retryAfterS: waitS },
    );
  }

  /** A request of the key made the engine fail (its 5xx, or its refusal read as a 5xx). */
  faulted(keyId: string, model: string, detail: string): void {
    const id = `${keyId}\n${model}`;
    const now = this.#opts.now();
    let r = this.#byKey.get(id);
    if (!r || now - r.firstAt > this.#opts.windowMs && r.until <= now) {
      r = { faults: 0, firstAt: now, until: 0, detail };
    }
    r.faults++;
    r.detail = detail.slice(0, 300);
    const over = r.faults - this.#opts.free;
    if (over > 0) r.until = now + Math.min(this.#opts.maxMs, 500 * 2 ** over);
    this.#byKey.delete(id);
    this.#byKey.set(id, r);
    if (this.#byKey.size > this.#opts.maxEntries) {
      this.#byKey.delete(this.#byKey.keys().next().value!);
    }
  }

  /** An answer of the key's ended well: what it caused before is forgiven. */
  answered(keyId: string, model: string): void {
    if (this.#byKey.size) this.#byKey.delete(`${keyId}\n${model}`);
  }
}
