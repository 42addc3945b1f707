/**
 * The node's side of leader fencing: the highest leader epoch it has heard (see `leaderEpoch` in
 * core/protocol/messages.ts). A welcome or command from an older epoch comes from a control
 * plane that lost the lease without knowing yet; acting on it could undo what the new leader
 * placed. Kept in memory only: a restarted agent learns the epoch again from its first welcome,
 * and a store rebuilt with its epochs from 1 again is not refused by agents started after it.
 */
export class EpochFence {
  #highest = 0;

  /** The highest epoch seen so far (0 before any). */
  get highest(): number {
    return this.#highest;
  }

  /**
   * True when `epoch` is not older than one seen, remembering it when newer. Absent: a control
   * plane that leads alone, without a lease, which nothing fences.
   */
  admit(epoch: number | undefined): boolean {
    if (epoch === undefined) return true;
    if (epoch < this.#highest) return false;
    this.#highest = epoch;
    return true;
  }
}
