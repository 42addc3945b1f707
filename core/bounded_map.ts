/**
 * A map that holds at most `capacity` entries: past it, the entry touched longest ago goes, one
 * at a time, so a flood of new names (addresses, accounts) pushes out only the stalest rather
 * than wiping what the table knew about everyone else.
 */
export class BoundedMap<K, V> {
  readonly #map = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  /** Sets and marks as the newest; the oldest goes when the map is full. */
  set(key: K, value: V): void {
    // A Map iterates in insertion order: deleting first moves the key to the newest end.
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.capacity) {
      const oldest = this.#map.keys().next();
      if (oldest.done) break;
      this.#map.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.#map.delete(key);
  }
}
