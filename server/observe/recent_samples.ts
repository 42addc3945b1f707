/**
 * The last hour, in memory, for the portal's charts: per card (from each node's heartbeat) its
 * utilisation, memory in use and power; per model (from each usage row) requests a second, mean
 * time to first token and the admission queue's depth. Each series is a ring of at most 360
 * ten-second buckets (one hour), so memory is bounded by the number of cards and catalog models.
 * Nothing is stored: a restarted control plane starts with empty charts; another control plane
 * keeps its own. Prometheus (/metrics) stays the place for history.
 */

export const bucketMs = 10_000;
export const keptMs = 3_600_000;
const capacity = keptMs / bucketMs;
/** Bounds on the number of series, past which new ones are not kept (label values are bounded, but a ring per one must be too). */
const maxSeries = 2_000;

export interface CardSample {
  at: number;
  /** 0..100, or null when the card does not say. */
  util: number | null;
  /** 0..1 of the card's memory in use. */
  memory: number | null;
  powerW: number | null;
}

export interface ModelSample {
  at: number;
  requestsPerS: number;
  /** Mean over the bucket's streamed requests; null when none streamed. */
  ttftMs: number | null;
  /** The most requests seen waiting for a slot during the bucket. */
  queue: number;
}

interface ModelBucket {
  at: number;
  requests: number;
  ttftSum: number;
  ttftCount: number;
  queue: number;
}

/** A card as a heartbeat reports it (the fields read here). */
export interface ReportedCard {
  index: number;
  utilizationPercent?: number | undefined;
  memoryUsedBytes?: number | undefined;
  memoryTotalBytes?: number | undefined;
  powerDrawW?: number | undefined;
}

class Ring<T extends { at: number }> {
  readonly items: T[] = [];
  /** The bucket for `at`: the last one when it is the same, else a new one (the oldest dropped). */
  bucket(at: number, make: () => T): T {
    const last = this.items[this.items.length - 1];
    if (last && last.at === at) return last;
    const fresh = make();
    this.items.push(fresh);
    if (this.items.length > capacity) this.items.splice(0, this.items.length - capacity);
    return fresh;
  }
  since(from: number): T[] {
    return this.items.filter((x) => x.at >= from);
  }
}

export class RecentSamples {
  readonly #cards = new Map<string, Ring<CardSample>>();
  readonly #models = new Map<string, Ring<ModelBucket>>();

  constructor(readonly now: () => number = Date.now) {}

  /** One heartbeat's cards, for the node named `node`. */
  cards(node: string, cards: readonly ReportedCard[]): void {
    const at = this.#bucketOf(this.now());
    for (const g of cards) {
      const ring = this.#ring(this.#cards, `${node}\u0000${g.index}`);
      if (!ring) continue;
      const s = ring.bucket(at, () => ({ at, util: null, memory: null, powerW: null }));
      // The bucket keeps the last report in it: the heartbeat is already a recent reading.
      s.util = g.utilizationPercent ?? null;
      s.memory = g.memoryTotalBytes && g.memoryUsedBytes !== undefined
        ? g.memoryUsedBytes / g.memoryTotalBytes
        : null;
      s.powerW = g.powerDrawW ?? null;
    }
  }

  /** One answered request of `model`; `waiting` is the queue's depth as it ended. */
  request(model: string, ttftMs: number | null, waiting: number): void {
    const at = this.#bucketOf(this.now());
    const ring = this.#ring(this.#models, model);
    if (!ring) return;
    const b = ring.bucket(at, () => ({ at, requests: 0, ttftSum: 0, ttftCount: 0, queue: 0 }));
    b.requests++;
    if (ttftMs !== null) {
      b.ttftSum += ttftMs;
      b.ttftCount++;
    }
    b.queue = Math.max(b.queue, waiting);
  }

  /** A card's last hour, oldest first. */
  cardSeries(node: string, index: number): CardSample[] {
    return this.#cards.get(`${node}\u0000${index}`)?.since(this.now() - keptMs) ?? [];
  }

  /** A model's last hour, oldest first; buckets without a request are not listed. */
  modelSeries(model: string): ModelSample[] {
    const items = this.#models.get(model)?.since(this.now() - keptMs) ?? [];
    return items.map((b) => ({
      at: b.at,
      requestsPerS: b.requests / (bucketMs / 1000),
      ttftMs: b.ttftCount ? b.ttftSum / b.ttftCount : null,
      queue: b.queue,
    }));
  }

  #bucketOf(ms: number): number {
    return Math.floor(ms / bucketMs) * bucketMs;
  }

  #ring<T extends { at: number }>(map: Map<string, Ring<T>>, key: string): Ring<T> | undefined {
    let ring = map.get(key);
    if (!ring) {
      if (map.size >= maxSeries) return undefined;
      ring = new Ring<T>();
      map.set(key, ring);
    }
    return ring;
  }
}
