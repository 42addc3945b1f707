/**
 * Dead-peer detection for one side of the control channel. A peer that lost power never closes
 * its connection, so silence is the only sign: after `idleMs` without any message this side sends
 * a ping, and if nothing at all arrives within `answerMs` more, it gives up on the connection.
 * Any message counts as life, so a steady heartbeat means no pings are needed.
 */
import { type Clock, systemClock } from "../clock.ts";

export interface LivenessOptions {
  idleMs: number;
  answerMs: number;
  sendPing(id: string): void;
  onDead(): void;
  /** Whose time the windows are measured on; a test passes a FakeClock and calls `check`. */
  clock?: Clock;
}

export class Liveness {
  readonly #clock: Clock;
  #lastHeard: number;
  #pingSentAt = 0;
  #timer: ReturnType<typeof setInterval>;
  #seq = 0;
  #stopped = false;

  constructor(private readonly opts: LivenessOptions) {
    this.#clock = opts.clock ?? systemClock;
    this.#lastHeard = this.#clock.now();
    const tick = Math.max(50, Math.min(opts.idleMs, opts.answerMs) / 4);
    this.#timer = setInterval(() => this.check(), tick);
  }

  /** Call on every message received. */
  heard(): void {
    this.#lastHeard = this.#clock.now();
    this.#pingSentAt = 0;
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }

  /** Runs on the interval; a test on a FakeClock calls it after moving the clock. */
  check(): void {
    if (this.#stopped) return; // a peer is declared dead once
    const now = this.#clock.now();
    if (this.#pingSentAt) {
      if (now - this.#pingSentAt >= this.opts.answerMs) {
        this.stop();
        this.opts.onDead();
      }
      return;
    }
    if (now - this.#lastHeard >= this.opts.idleMs) {
      this.#pingSentAt = now;
      this.opts.sendPing(String(++this.#seq));
    }
  }
}
