/**
 * Keys this process wrote lately, most recent last, at most `maxEntries` of them (the oldest are
 * forgotten first). With S3CoreSettings.nullConvergence 'scan', a null version's writer converges
 * the key's null rows itself only when it wrote a null version of the key lately: then the key
 * surely has a row to replace, and a key rewritten over and over keeps one stale row at most per
 * gateway instead of one per write until the next scan.
 */
export class RecentKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly maxEntries: number) {}

  /** Records `key` as written now; true when it was already among the recent keys. */
  touch(key: string): boolean {
    if (this.maxEntries <= 0) return false;
    const seen = this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.maxEntries) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return seen;
  }

  get size(): number {
    return this.keys.size;
  }
}
