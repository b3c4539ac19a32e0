// A small least-recently-used cache for pure functions of short keys (e.g. a phone as typed ->
// its digits). Bounded by entry count: past `capacity`, the entry read or written longest ago goes.
// A Map keeps insertion order; a hit is moved to the end by deleting and setting it again.

/** A least-recently-used cache of at most `capacity` entries (see the file comment). */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  /** `capacity`: most entries kept (an integer ≥ 1). */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LRU capacity must be an integer >= 1, got ${capacity}`);
  }

  /** Entries held now (at most `capacity`). */
  get size(): number {
    return this.entries.size;
  }

  /** Whether `key` is held (does not refresh it). */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value of `key`, refreshed as the most recently used; undefined when not held. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Stores `value` under `key` as the most recently used, evicting the least recently used past `capacity`. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }
}
