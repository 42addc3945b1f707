/**
 * Slots, as llama-server has them: a fixed number of sequences decode at once and the rest wait.
 * Waiters are served strictly first come, first served; a freed slot goes straight to the head of
 * the queue so a newcomer can never overtake it. Each slot keeps the prompt it last processed
 * (its prompt cache) until another request takes it.
 */
import { emptyPrefix, type PromptPrefix, reusable } from "./prompt_cache.ts";

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
  /** The prompt the slot last processed: what its cache holds, busy or idle. */
  cached: PromptPrefix;
  /** When it was last taken (a counter), for picking the least recently used. */
  lastUsed: number;
}

/** What a request asks of the pool: a slot by id (llama-server's `id_slot`), or the best fit. */
export interface SlotWish {
  prompt?: PromptPrefix;
  promptTokens?: number;
  slotId?: number;
}

interface Waiter {
  /** The slot it asked for; undefined takes any. */
  slotId: number | undefined;
  give(slot: Slot): void;
}

export class SlotPool {
  readonly slots: readonly Slot[];
  readonly #queue: Waiter[] = [];
  #nextTask = 0;

  constructor(count: number, readonly nCtx: number) {
    this.slots = Array.from({ length: count }, (_, id) => idleSlot(id, nCtx));
  }

  /**
   * Takes the slot asked for, else the free slot whose cache holds most of the prompt, else the
   * least recently used free one, as llama-server does; or waits in line. Leaving the line on
   * abort rejects.
   */
  acquire(signal: AbortSignal, wish: SlotWish = {}): Promise<Slot> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const slotId = wish.slotId !== undefined && this.slots[wish.slotId] ? wish.slotId : undefined;
    const free = slotId === undefined
      ? this.#bestFree(wish)
      : this.slots[slotId]!.processing
      ? undefined
      : this.slots[slotId];
    if (free && !this.#queue.some((w) => w.slotId === undefined || w.slotId === free.id)) {
      return Promise.resolve(this.#claim(free));
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        slotId,
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
    Object.assign(slot, idleSlot(slot.id, slot.nCtx), {
      cached: slot.cached,
      lastUsed: slot.lastUsed,
    });
    const at = this.#queue.findIndex((w) => w.slotId === undefined || w.slotId === slot.id);
    if (at < 0) return;
    const [next] = this.#queue.splice(at, 1);
    next!.give(slot);
  }

  #bestFree(wish: SlotWish): Slot | undefined {
    let best: Slot | undefined;
    let bestReuse = -1;
    for (const s of this.slots) {
      if (s.processing) continue;
      const reuse = wish.prompt ? reusable(s.cached, wish.prompt, wish.promptTokens ?? 0) : 0;
      if (reuse > bestReuse || (reuse === bestReuse && s.lastUsed < best!.lastUsed)) {
        [best, bestReuse] = [s, reuse];
      }
    }
    return best;
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
    slot.lastUsed = slot.taskId;
    return slot;
  }
}

function idleSlot(id: number, nCtx: number): Slot {
  return {
    id,
    nCtx,
    taskId: -1,
    processing: false,
    promptTokens: 0,
    decoded: 0,
    nPredict: -1,
    cached: emptyPrefix,
    lastUsed: -1,
  };
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
