/**
 * A sliding one-minute window: this minute's count plus the previous minute's, weighted by how
 * much of it is still in view. Cheap (two numbers per counter) and smooth at the minute's turn.
 *
 * With several control planes, each window also carries what the others counted in the same
 * minutes (absolute per minute, as last reported through the store), so every control plane
 * judges a key by the cluster's total. Between two reports a control plane admits at most its
 * share of the room left (the room split among the control planes counting), so N control planes
 * together cannot spend the same room N times before they hear of each other.
 */
export const windowMs = 60_000;

export class SlidingWindow {
  #start = 0;
  #cur = 0;
  #prev = 0;
  /** What other control planes counted, by the start of the minute they counted it in. */
  #remote = new Map<number, number>();
  /**
   * What this control plane added that the others may not have read yet: everything since the
   * report before last, since another control plane reads a report up to one exchange late.
   */
  #unsynced = 0;
  /** What the last report carried that was new, not counted as read until the next one. */
  #lastSent = 0;
  /** How many control planes count (this one included), as of the last report. */
  #planes = 1;

  /**
   * `planes` is how many control planes counted at the last exchange: a window made after it (a
   * fresh key's) must share its room from its first request, not only after the next exchange.
   */
  constructor(readonly ms: number = windowMs, planes = 1) {
    this.#planes = Math.max(1, planes);
  }

  #roll(now: number): void {
    const start = now - (now % this.ms);
    if (start === this.#start) return;
    this.#prev = start - this.#start === this.ms ? this.#cur : 0;
    this.#cur = 0;
    this.#start = start;
    for (const at of this.#remote.keys()) if (at < start - this.ms) this.#remote.delete(at);
  }

  #curAll(): number {
    return this.#cur + (this.#remote.get(this.#start) ?? 0);
  }

  #prevAll(): number {
    return this.#prev + (this.#remote.get(this.#start - this.ms) ?? 0);
  }

  rate(now: number): number {
    this.#roll(now);
    const seen = (now - this.#start) / this.ms;
    return this.#prevAll() * (1 - seen) + this.#curAll();
  }

  add(now: number, n: number): void {
    this.#roll(now);
    // A correction may be negative (the estimate was high); a count never goes below zero.
    const before = this.#cur;
    this.#cur = Math.max(0, this.#cur + n);
    this.#unsynced = Math.max(0, this.#unsynced + this.#cur - before);
  }

  /**
   * Whether `n` more fit under `limit`: the cluster's total, and, when others count too, this
   * control plane's share of the room left since it last reported. The first request after a
   * report always gets its chance at the total, so a share below one request still admits one.
   */
  fits(now: number, limit: number, n: number): boolean {
    const used = this.rate(now);
    if (used + n > limit) return false;
    if (this.#planes <= 1 || this.#unsynced === 0) return true;
    const room = limit - (used - this.#unsynced);
    return this.#unsynced + n <= room / this.#planes;
  }

  /** This control plane's own count for the minute starting at `start` (0 once out of view). */
  own(start: number): number {
    return start === this.#start ? this.#cur : start === this.#start - this.ms ? this.#prev : 0;
  }

  /** The minute `now` falls in, by its start. */
  minuteOf(now: number): number {
    return now - (now % this.ms);
  }

  /** What was added since the last report; given back to `synced` once that report is out. */
  pending(): number {
    return this.#unsynced - this.#lastSent;
  }

  /**
   * After this control plane's counts went out (`sent` of them new since the report before): what
   * the others counted, absolute per minute (so hearing the same report twice changes nothing),
   * and how many count in all.
   */
  synced(now: number, sent: number, others: Map<number, number>, planes: number): void {
    this.#roll(now);
    this.#remote = new Map([...others].filter(([at]) => at >= this.#start - this.ms));
    this.#unsynced = Math.max(0, this.#unsynced - this.#lastSent);
    this.#lastSent = Math.min(sent, this.#unsynced);
    this.#planes = Math.max(1, planes);
  }

  /** How long until `n` more fit under `limit`, assuming nothing else arrives. */
  waitFor(now: number, limit: number, n: number): number {
    this.#roll(now);
    const ms = this.ms;
    const cur = this.#curAll();
    const prev = this.#prevAll();
    const intoMinute = now - this.#start;
    if (this.rate(now) + n <= limit) return 0;
    if (prev > 0 && cur + n <= limit) {
      const need = ms * (1 - (limit - cur - n) / prev);
      if (need <= ms) return Math.max(0, Math.ceil(need - intoMinute));
    }
    const toNext = ms - intoMinute;
    if (n > limit) return toNext + ms;
    if (cur === 0) return toNext;
    const need = ms * (1 - (limit - n) / cur);
    return toNext + Math.max(0, Math.ceil(need));
  }

  /** How long until the window is empty again: OpenAI's `x-ratelimit-reset-*`. */
  untilEmpty(now: number): number {
    this.#roll(now);
    const toNext = this.ms - (now - this.#start);
    if (this.#curAll() > 0) return toNext + this.ms;
    return this.#prevAll() > 0 ? toNext : 0;
  }
}

/** A duration in OpenAI's header form: `20ms`, `1s`, `6m0s`, `1.5s`. */
export function formatReset(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const totalS = Math.ceil(ms / 100) / 10;
  const m = Math.floor(totalS / 60);
  const s = Math.round((totalS - m * 60) * 10) / 10;
  return m > 0 ? `${m}m${s}s` : `${s}s`;
}
