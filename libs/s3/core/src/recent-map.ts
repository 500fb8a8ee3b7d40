/**
 * A string-keyed map of at most `maxEntries` entries that forgets the one set least recently
 * first, in O(1) per `set`. Not a Map whose first entry is deleted: V8 leaves deleted entries in
 * its hash table until it rehashes, and finding the first live one walks over all of them (16 µs
 * a set at 20,000–65,536 entries). Here each entry carries the number of its latest `set`, the
 * sets are queued in order in two parallel arrays, and an eviction skips the queued sets a later
 * one made outdated; the arrays are compacted when they outgrow twice the map.
 */
export class RecentMap<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private keys: string[] = [];
  private ats: number[] = [];
  private head = 0;
  private sets = 0;

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The value of `key`; reading does not make it more recent. */
  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Sets `key` as the most recent entry, then forgets the least recent beyond `maxEntries`. */
  set(key: string, value: V): void {
    if (this.maxEntries <= 0) return;
    const at = ++this.sets;
    const entry = this.entries.get(key);
    if (entry) {
      entry.value = value;
      entry.at = at;
    } else {
      this.entries.set(key, { value, at });
    }
    this.keys.push(key);
    this.ats.push(at);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.keys[this.head]!;
      if (this.entries.get(oldest)?.at === this.ats[this.head]) this.entries.delete(oldest);
      this.head++;
    }
    if (this.keys.length > 2 * this.maxEntries + 16) this.compact();
  }

  private compact(): void {
    const keys: string[] = [];
    const ats: number[] = [];
    for (let i = this.head; i < this.keys.length; i++) {
      if (this.entries.get(this.keys[i]!)?.at !== this.ats[i]) continue;
      keys.push(this.keys[i]!);
      ats.push(this.ats[i]!);
    }
    this.keys = keys;
    this.ats = ats;
    this.head = 0;
  }
}
