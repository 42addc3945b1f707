/**
 * Slots, as llama-server has them: a fixed number of sequences decode at once and the rest wait.
 * Waiters are served strictly first come, first served; a freed slot goes straight to the head of
 * the queue so a newcomer can never overtake it.
 */

export interface Slot {
  readonly id: number;
  readonly nCtx: number;
  /** Task id of the request holding the slot, -1 when idle (llama-server's `id_task`). */
  taskId: number;
  processing: boolean;
  promptTokens: number;
  /** Tokens generated so far across all choices of the request. */
  decoded: number;
  /** The request's generation budget, -1 when idle. */
  nPredict: number;
}

interface Waiter {
  give(slot: Slot): void;
}

export class SlotPool {
  readonly slots: readonly Slot[];
  readonly #queue: Waiter[] = [];
  #nextTask = 0;

  constructor(count: number, readonly nCtx: number) {
    this.slots = Array.from({ length: count }, (_, id) => idleSlot(id, nCtx));
  }

  /** Takes the lowest free slot, or waits in line; leaving the line on abort rejects. */
  acquire(signal: AbortSignal): Promise<Slot> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const free = this.slots.find((s) => !s.processing);
    if (free && this.#queue.length === 0) return Promise.resolve(this.#claim(free));
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        give: (slot) => {
          signal.removeEventListener("abort", onAbort);
          resolve(this.#claim(slot));
        },
      };
      this.#queue.push(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  release(slot: Slot): void {
    Object.assign(slot, idleSlot(slot.id, slot.nCtx));
    const next = this.#queue.shift();
    if (next) next.give(slot);
  }

  /** Slots generating now (llama-server's `requests_processing`). */
  get processing(): number {
    return this.slots.filter((s) => s.processing).length;
  }

  /** Requests waiting for a slot (llama-server's `requests_deferred`). */
  get deferred(): number {
    return this.#queue.length;
  }

  /** Tokens held in the notional KV cache: prompt plus generated, over busy slots. */
  get kvTokens(): number {
    return this.slots.reduce((n, s) => n + (s.processing ? s.promptTokens + s.decoded : 0), 0);
  }

  #claim(slot: Slot): Slot {
    slot.processing = true;
    slot.taskId = this.#nextTask++;
    return slot;
  }
}

function idleSlot(id: number, nCtx: number): Slot {
  return { id, nCtx, taskId: -1, processing: false, promptTokens: 0, decoded: 0, nPredict: -1 };
}

/**
 * Live counters behind /metrics. The throughput gauges, like llama-server's, average over the
 * interval since the last scrape, so a scraper sees recent speed rather than a lifetime mean.
 */
export class EngineCounters {
  promptTokens = 0;
  promptMs = 0;
  predictedTokens = 0;
  predictedMs = 0;
  decodeCalls = 0;
  busySlotsSum = 0;
  requests = 0;
  cancelled = 0;
  bucket = { promptTokens: 0, promptMs: 0, predictedTokens: 0, predictedMs: 0 };

  prompt(tokens: number, ms: number): void {
    this.promptTokens += tokens;
    this.promptMs += ms;
    this.bucket.promptTokens += tokens;
    this.bucket.promptMs += ms;
  }

  /** One decode step: `tokens` new tokens, with `busy` slots active at the time. */
  decode(tokens: number, busy: number): void {
    this.predictedTokens += tokens;
    this.bucket.predictedTokens += tokens;
    this.decodeCalls++;
    this.busySlotsSum += busy;
  }

  /** Generation time of one finished (or cancelled) request. */
  generationTime(ms: number): void {
    this.predictedMs += ms;
    this.bucket.predictedMs += ms;
  }

  resetBucket(): void {
    this.bucket = { promptTokens: 0, promptMs: 0, predictedTokens: 0, predictedMs: 0 };
  }
}
