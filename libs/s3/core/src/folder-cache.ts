import type { Clock } from '@ostore/shared/clock';
import type { KeyPath } from './keys';
import { RecentMap } from './recent-map';

/**
 * Folder rows this process wrote recently, so that a stream of PUTs into the same directories does
 * not rewrite the same `object_folders` / `version_folders` rows on every request (they were two
 * of the six Cassandra requests of a small PUT).
 *
 * The contract with anything that deletes folder rows (the empty-directory cleanup of seed 000):
 * a row this cache skips was written by this process less than `ttlMs` ago (by its clock). A
 * cleanup that found a directory empty at time T must therefore delete its row with a write
 * timestamp of at most T − ttl − (clock skew allowance): then every writer that skipped the row
 * because of this cache, and every writer that wrote it after T, still wins over the delete.
 * Bounded: the oldest entries are dropped beyond `maxEntries`.
 */
export class FolderCache {
  private readonly written: RecentMap<number>;

  constructor(
    private readonly clock: Clock,
    readonly ttlMs: number,
    maxEntries = 20_000,
  ) {
    this.written = new RecentMap(maxEntries);
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The rows not written by this process within the last `ttlMs`. */
  missing(table: string, bucketId: string, rows: KeyPath[]): KeyPath[] {
    if (!this.enabled || rows.length === 0) return rows;
    const now = this.clock.nowMs();
    return rows.filter((r) => {
      const at = this.written.get(keyOf(table, bucketId, r));
      return at === undefined || now - at >= this.ttlMs;
    });
  }

  /** Records rows as written at `writtenAtMs` (the time taken before the write was sent). */
  remember(table: string, bucketId: string, rows: KeyPath[], writtenAtMs: number): void {
    if (!this.enabled) return;
    for (const r of rows) this.written.set(keyOf(table, bucketId, r), writtenAtMs);
  }
}

function keyOf(table: string, bucketId: string, r: KeyPath): string {
  return `${table}\u0000${bucketId}\u0000${r.parent}\u0000${r.name}`;
}
