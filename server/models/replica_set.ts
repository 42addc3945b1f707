/**
 * A replica served by several nodes is one head replica and its worker replicas: the workers' ids are
 * the head's with `.w1`, `.w2`… after it, so the set is known from the replica table alone (no
 * column of its own), and a worker is never mistaken for a replica to count, route to or roll.
 */
import type { Replica } from "./replica.ts";

const workerMark = /\.w(\d+)$/;

export function workerId(headId: string, i: number): string {
  return `${headId}.w${i}`;
}

export function isWorker(replicaId: string): boolean {
  return workerMark.test(replicaId);
}

/** The head's id for any member of a set (a head's own id for a head or a lone replica). */
export function headOf(replicaId: string): string {
  return replicaId.replace(workerMark, "");
}

/** The workers of `headId` among `replicas`, in their order. */
export function workersOf<T extends Pick<Replica, "id">>(
  replicas: readonly T[],
  headId: string,
): T[] {
  return replicas.filter((s) => isWorker(s.id) && headOf(s.id) === headId).sort((a, b) =>
    Number(workerMark.exec(a.id)![1]) - Number(workerMark.exec(b.id)![1])
  );
}
