/**
 * Admission: a request goes to a replica only while one has room (fewer in flight than its
 * slots); otherwise it waits in its model's queue until room frees or its deadline passes (then
 * `queue_timeout`, a 503 with Retry-After). Two lanes: interactive requests (streamed, or the chat
 * profile) go first, but while both lanes wait every Nth grant goes to batch, so neither starves.
 * A waiter whose client leaves is taken out at once.
 *
 * Within a lane the queue is fair between tenants (a weighted fair share of the model's slots):
 * the next grant goes to the project with the fewest requests running on the model for its
 * weight, within it to the key with the fewest, and within that key to the oldest waiter. So a
 * key with twenty long streams queued cannot keep another key's one request waiting: it takes
 * the first slot that frees.
 */
import { AppError } from "../../core/errors.ts";

export type Lane = "interactive" | "batch";

/** Who a waiter is, for the fair share. */
export interface Flow {
  /** The project, or the key itself for a key in none. */
  project: string;
  key: string;
  /** The project's share against other projects (a limit, default 1). */
  weight: number;
  /** Requests of the project and of the key admitted to the model and not yet ended. */
  admitted(): { project: number; key: number };
}

/** Everyone the same: first come, first served. */
const anyone: Flow = { project: "", key: "", weight: 1, admitted: () => ({ project: 0, key: 0 }) };

interface Waiter {
  take: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  cleanup: () => void;
  flow: Flow;
}

interface ModelQueue {
  interactive: Waiter[];
  batch: Waiter[];
  /** Grants made while both lanes waited. */
  contested: number;
}

export interface AdmissionOptions {
  timeoutMs: number;
  /** Share of grants batch gets while both lanes wait, in percent. */
  batchSharePercent: number;
}

export class Admission {
  readonly #queues = new Map<string, ModelQueue>();
  readonly #batchEvery: number;

  constructor(private readonly opts: AdmissionOptions) {
    this.#batchEvery = Math.max(1, Math.round(100 / Math.max(1, opts.batchSharePercent)));
  }

  /**
   * `take` returns what was taken (a replica) or undefined when nothing has room. Resolves at once
   * when it succeeds and nobody is ahead; else waits. Rejects with `queue_timeout` at the deadline
   * or with the signal's reason when the client leaves.
   */
  admit<T>(
    key: string,
    lane: Lane,
    take: () => T | undefined,
    signal: AbortSignal,
    flow: Flow = anyone,
  ): T | Promise<T> {
    const q = this.#queues.get(key);
    const ahead = q
      ? (lane === "interactive" ? q.interactive.length : q.interactive.length + q.batch.length)
      : 0;
    if (ahead === 0) {
      const got = take();
      if (got !== undefined) return got;
    }
    if (signal.aborted) return Promise.reject(signal.reason);
    const queue = q ?? this.#newQueue(key);
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    const waiter: Waiter = {
      take,
      flow,
      resolve: resolve as (v: unknown) => void,
      reject,
      cleanup: () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      },
    };
    const leave = (e: unknown) => {
      const list = queue[lane];
      const i = list.indexOf(waiter);
      if (i >= 0) list.splice(i, 1);
      waiter.cleanup();
      reject(e);
      this.#dropIfEmpty(key, queue);
    };
    const onAbort = () => leave(signal.reason);
    const timer = setTimeout(() => {
      const retryAfter = Math.max(1, Math.ceil(this.opts.timeoutMs / 10_000));
      leave(new AppError("queue_timeout", { model: key }, null, { retryAfterS: retryAfter }));
    }, this.opts.timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });
    queue[lane].push(waiter);
    return promise;
  }

  /** Room may have freed for `key`: grants waiters, in order, while `take` succeeds. */
  wake(key: string): void {
    const q = this.#queues.get(key);
    if (!q) return;
    for (;;) {
      const both = q.interactive.length > 0 && q.batch.length > 0;
      const lane: Lane = both
        ? ((q.contested + 1) % this.#batchEvery === 0 ? "batch" : "interactive")
        : q.interactive.length > 0
        ? "interactive"
        : "batch";
      const i = fairest(q, lane);
      const w = q[lane][i];
      if (!w) break;
      const got = w.take();
      if (got === undefined) break;
      q[lane].splice(i, 1);
      if (both) q.contested++;
      w.cleanup();
      w.resolve(got);
    }
    this.#dropIfEmpty(key, q);
  }

  /** A live settings change: new waiters get the new deadline. */
  setTimeoutMs(ms: number): void {
    this.opts.timeoutMs = ms;
  }

  waiting(key: string): number {
    const q = this.#queues.get(key);
    return q ? q.interactive.length + q.batch.length : 0;
  }

  #newQueue(key: string): ModelQueue {
    const q: ModelQueue = { interactive: [], batch: [], contested: 0 };
    this.#queues.set(key, q);
    return q;
  }

  #dropIfEmpty(key: string, q: ModelQueue): void {
    if (q.interactive.length === 0 && q.batch.length === 0 && this.#queues.get(key) === q) {
      this.#queues.delete(key);
    }
  }
}

/**
 * The waiter in `lane` whose project, then key, has the fewest requests running for its weight;
 * the oldest among equals. Running is what was admitted less what waits here.
 */
function fairest(q: ModelQueue, lane: Lane): number {
  const list = q[lane];
  if (list.length <= 1) return 0;
  const waitingProject = new Map<string, number>();
  const waitingKey = new Map<string, number>();
  for (const w of [...q.interactive, ...q.batch]) {
    waitingProject.set(w.flow.project, (waitingProject.get(w.flow.project) ?? 0) + 1);
    waitingKey.set(w.flow.key, (waitingKey.get(w.flow.key) ?? 0) + 1);
  }
  const scores = new Map<Flow["key"], [number, number]>();
  let best = 0;
  let bestScore: [number, number] | undefined;
  for (let i = 0; i < list.length; i++) {
    const f = list[i]!.flow;
    let score = scores.get(f.key);
    if (!score) {
      const a = f.admitted();
      score = [
        Math.max(0, a.project - (waitingProject.get(f.project) ?? 0)) / Math.max(1, f.weight),
        Math.max(0, a.key - (waitingKey.get(f.key) ?? 0)),
      ];
      scores.set(f.key, score);
    }
    if (
      !bestScore || score[0] < bestScore[0] ||
      (score[0] === bestScore[0] && score[1] < bestScore[1])
    ) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}
