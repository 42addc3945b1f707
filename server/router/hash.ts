/** Small non-cryptographic hashes for routing: fast, stable across runs, no allocation. */

/** FNV-1a over UTF-16 code units, from `from` to `to`, continuing from `seed`. */
export function fnv1a(s: string, seed = 0x811c9dc5, from = 0, to = s.length): number {
  let h = seed >>> 0;
  for (let i = from; i < to; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Murmur3's finaliser: spreads the bits of a combined hash evenly. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Weighted rendezvous (highest random weight) score of a key on a node: the node with the highest
 * score wins. Adding or removing a node moves only the keys that node wins or won, and a node's
 * share of keys is proportional to its weight.
 */
export function rendezvousScore(keyHash: number, nodeHash: number, weight: number): number {
  // u in (0, 1): never 0 or 1, so the logarithm is finite and negative.
  const u = (mix32(keyHash ^ nodeHash) + 0.5) / 4294967296;
  return weight / -Math.log(u);
}
