/**
 * Keeps each replica's engine report fresh: every interval it asks the load sources for each
 * replica's load, each read time-boxed to the interval, and writes what comes back into the
 * replica table. A read that fails or takes too long is unknown load, never zero.
 *
 * A `LoadSource` is the narrow port a node offers (the appliance's local engines). Remote nodes'
 * engine reports arrive on their heartbeats instead (NodeHub); the table keeps whichever read is
 * newer. A source answers undefined for a replica it does not hold.
 */
import { type LoadSnapshot, unknownLoad } from "../../core/protocol/load_snapshot.ts";
import type { Clock } from "../../core/clock.ts";
import type { ReplicaTable } from "./replicas.ts";

export type LoadSource = (replicaId: string) => Promise<LoadSnapshot> | undefined;

export class LoadPoller {
  readonly #sources = new Set<LoadSource>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;

  constructor(
    private readonly table: ReplicaTable,
    private readonly opts: { intervalMs: number; clock: Clock },
  ) {}

  /** Adds a source; the function returned takes it away. */
  addSource(source: LoadSource): () => void {
    this.#sources.add(source);
    return () => this.#sources.delete(source);
  }

  /** One round over every replica. Resolves when each read has answered or timed out. */
  async pollOnce(): Promise<void> {
    const reads: Promise<void>[] = [];
    for (const r of this.table.list()) {
      if (r.external) continue;
      for (const source of this.#sources) {
        const pending = source(r.id);
        if (!pending) continue;
        reads.push(this.#timeBoxed(pending).then((load) => this.table.setLoad(r.id, load)));
        break;
      }
    }
    await Promise.all(reads);
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    const loop = async () => {
      await this.pollOnce();
      if (!this.#stopped) this.#timer = setTimeout(loop, this.opts.intervalMs);
    };
    this.#timer = setTimeout(loop, 0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #timeBoxed(p: Promise<LoadSnapshot>): Promise<LoadSnapshot> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<LoadSnapshot>((resolve) => {
      timer = setTimeout(() => resolve(unknownLoad(this.opts.clock.now())), this.opts.intervalMs);
    });
    const read = p.catch(() => unknownLoad(this.opts.clock.now()));
    return Promise.race([read, timeout]).finally(() => clearTimeout(timer));
  }
}
