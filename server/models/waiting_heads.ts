/**
 * The heads of sets the reconciler placed but has not sent (replica_set.ts): a head's engine
 * connects to its workers as it loads, so it is sent only once every worker is ready, with where
 * each worker's tunnel listens (`tls://host:port`, the worker's report). Kept in memory by the
 * leader that placed them; a head stored pending that this leader has no command for (it
 * restarted, or another led) is an orphan, whose set is best placed again.
 */
import type { StartCommand } from "./replica.ts";
import type { StoredReplica } from "./replica_records.ts";
import { workersOf } from "./replica_set.ts";

export interface WaitingHead {
  c: StartCommand;
  nodeId: string;
}

export class WaitingHeads {
  readonly #heads = new Map<string, WaitingHead>();

  wait(c: StartCommand, nodeId: string): void {
    this.#heads.set(c.replicaId, { c, nodeId });
  }

  /** Pending heads with workers that no command here will ever start. */
  orphans(all: readonly StoredReplica[]): string[] {
    return all.filter((s) =>
      s.state === "pending" && !this.#heads.has(s.id) && workersOf(all, s.id).length > 0
    ).map((s) => s.id);
  }

  /**
   * The heads to send now, each command with its workers' addresses, taken off the list; heads
   * no longer pending (stopped with their set) are forgotten.
   */
  due(
    all: readonly StoredReplica[],
    addressOf: (worker: StoredReplica) => string | undefined,
  ): (WaitingHead & { head: StoredReplica })[] {
    const out: (WaitingHead & { head: StoredReplica })[] = [];
    for (const [id, waiting] of this.#heads) {
      const head = all.find((s) => s.id === id);
      if (!head || head.state !== "pending") {
        this.#heads.delete(id);
        continue;
      }
      const workers = workersOf(all, id);
      const expected = waiting.c.after ?? [];
      if (workers.length !== expected.length || workers.some((w) => w.state !== "ready")) continue;
      const addresses = workers.map((w) => addressOf(w) ?? "");
      if (addresses.some((a) => !a.startsWith("tls://"))) continue;
      this.#heads.delete(id);
      const set = waiting.c.set!;
      const workersWithAddress = (set.workers ?? []).map((w, i) => ({
        ...w,
        address: addresses[i]!,
      }));
      out.push({
        ...waiting,
        c: { ...waiting.c, set: { ...set, workers: workersWithAddress } },
        head,
      });
    }
    return out;
  }
}
