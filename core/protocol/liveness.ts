/**
 * Dead-peer detection for one side of the control channel. A peer that lost power never closes
 * its connection, so silence is the only sign: after `idleMs` without any message this side sends
 * a ping, and if nothing at all arrives within `answerMs` more, it gives up on the connection.
 * Any message counts as life, so a steady heartbeat means no pings are needed.
 */
export interface LivenessOptions {
  idleMs: number;
  answerMs: number;
  sendPing(id: string): void;
  onDead(): void;
}

export class Liveness {
  #lastHeard = Date.now();
  #pingSentAt = 0;
  #timer: ReturnType<typeof setInterval>;
  #seq = 0;

  constructor(private readonly opts: LivenessOptions) {
    const tick = Math.max(50, Math.min(opts.idleMs, opts.answerMs) / 4);
    this.#timer = setInterval(() => this.#check(), tick);
  }

  /** Call on every message received. */
  heard(): void {
    this.#lastHeard = Date.now();
    this.#pingSentAt = 0;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  #check(): void {
    const now = Date.now();
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
