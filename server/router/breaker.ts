/**
 * A circuit breaker for one endpoint. Closed: requests go. After `failures` consecutive failures
 * (or one `trip`, for a key a provider refused) it opens: no request goes for `cooldownMs`. Then
 * it is half-open: exactly one request (the probe) goes; its success closes the breaker, its
 * failure opens it for another cool-down.
 */
export type BreakerState = "closed" | "open" | "half-open";

export class Breaker {
  #failures = 0;
  #openedAt = -1;
  #probing = false;

  constructor(
    private readonly failures: number,
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  state(): BreakerState {
    if (this.#openedAt < 0) return "closed";
    return this.now() - this.#openedAt >= this.cooldownMs ? "half-open" : "open";
  }

  /** Whether a request may go now, without taking the half-open probe. */
  available(): boolean {
    const s = this.state();
    return s === "closed" || (s === "half-open" && !this.#probing);
  }

  /** Called when a request is sent: in half-open state this request is the one probe. */
  take(): void {
    if (this.#openedAt >= 0) this.#probing = true;
  }

  success(): void {
    this.#failures = 0;
    this.#openedAt = -1;
    this.#probing = false;
  }

  failure(): void {
    this.#failures++;
    if (this.#probing || this.#failures >= this.failures) this.trip();
  }

  /** Opens at once (a key refused or rate-limited by its provider). */
  trip(): void {
    this.#openedAt = this.now();
    this.#probing = false;
  }

  /** A probe that ended without a verdict (the client left) lets another probe go. */
  release(): void {
    this.#probing = false;
  }
}
