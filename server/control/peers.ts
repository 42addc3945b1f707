/**
 * Whether another control plane shares this one's store now. The store exchanges (rate counts,
 * published replicas, slot shares, the change feed) only matter then; alone, as on one box, they
 * would be a store write or read every second for nothing, the whole of an idle appliance's work.
 */
export interface Peers {
  /** No other control plane has said it is alive lately. */
  readonly alone: boolean;
  /** Runs `fn` each time another control plane appears after none, so exchanges catch up at once. */
  onJoined(fn: () => void): void;
}

/**
 * Whether the exchanges may rest now: only with presence wired and nobody else alive. Wired
 * without presence (the tests' harness, a store that is never shared), never alone.
 */
export function alone(peers: Peers | undefined): boolean {
  return peers?.alone === true;
}
