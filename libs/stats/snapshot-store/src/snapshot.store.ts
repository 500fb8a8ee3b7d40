import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import {
  BucketSnapshot,
  BucketSnapshotCodec,
  CombinedSnapshot,
  CompletedHostSnapshot,
  HostSnapshot,
  HostSnapshotCodec,
  replacesHostSnapshot,
} from '@ostore/stats/snapshot';

/** The newest combination of host snapshots (its cut, parts and size). */
export interface CombinationInfo {
  readonly cut: Date;
  readonly parts: readonly string[];
  readonly buckets: number;
  /** When the oldest host snapshot in it completed: the age of the combined snapshot. */
  readonly oldestCompletedAt: Date;
  readonly combinedAt: Date;
}

/** A bucket's figures in the newest combination (none: the bucket had nothing before its cut). */
export interface LatestBucketSnapshot {
  readonly combination: CombinationInfo;
  readonly bucket?: BucketSnapshot;
}

/**
 * The snapshot tables of migration 010 (`host_snapshots`, `bucket_snapshots`,
 * `snapshot_combinations`): the one module that reads and writes them, through the
 * @ostore/stats/snapshot codecs. Every write is a whole-row INSERT with the table's TTL.
 */
export class SnapshotStore {
  constructor(
    private readonly client: CassandraClient,
    private readonly clock: Clock,
  ) {}

  /**
   * Records a host's completed pass over one table, unless the host's row holds a pass of the same
   * cut that counts usage: the first completed pass of a cut is kept (`replacesHostSnapshot`).
   * Resolves whether it was written. One writer per row (the scanner of that host), so the read
   * before the write races nobody.
   */
  async saveHostSnapshot(ks: string, s: { source: string; handler: string; passTs: Date; snapshot: HostSnapshot }): Promise<boolean> {
    const previous = await this.client.execute(
      `SELECT pass_ts FROM ${this.client.keyspace}.host_snapshots WHERE ks = ? AND source = ? AND handler = ?`,
      [ks, s.source, s.handler],
      { isIdempotent: true },
    );
    const previousPassTs = (previous.first()?.['pass_ts'] as Date | null | undefined) ?? undefined;
    if (!replacesHostSnapshot(previousPassTs, s.snapshot)) return false;
    await this.client.execute(
      `INSERT INTO ${this.client.keyspace}.host_snapshots (ks, source, handler, pass_ts, completed_at, stat) VALUES (?, ?, ?, ?, ?, ?)`,
      [ks, s.source, s.handler, s.passTs, this.clock.now(), JSON.stringify(HostSnapshotCodec.encode(s.snapshot))],
      { isIdempotent: true },
    );
    return true;
  }

  /** Every host's kept snapshot of each of the keyspace's tables: the first completed pass of its newest cut (unreadable rows are reported, not returned). */
  async hostSnapshots(ks: string, onUnreadable?: (source: string, handler: string, err: Error) => void): Promise<CompletedHostSnapshot[]> {
    const rs = await this.client.execute(
      `SELECT source, handler, completed_at, stat FROM ${this.client.keyspace}.host_snapshots WHERE ks = ?`,
      [ks],
      { isIdempotent: true },
    );
    const out: CompletedHostSnapshot[] = [];
    for (const r of rs.rows) {
      const source = r['source'] as string;
      const handler = r['handler'] as string;
      try {
        out.push({ source, handler, completedAt: r['completed_at'] as Date, snapshot: HostSnapshotCodec.decode(JSON.parse(r['stat'] as string)) });
      } catch (e) {
        onUnreadable?.(source, handler, e as Error);
      }
    }
    return out;
  }

  /** Writes a combination: every bucket's row first, then the combination row that makes them the newest. */
  async saveCombination(ks: string, c: CombinedSnapshot): Promise<void> {
    const ksName = this.client.keyspace;
    const rows = [...c.buckets];
    const concurrency = 16;
    for (let i = 0; i < rows.length; i += concurrency)
      await Promise.all(
        rows.slice(i, i + concurrency).map((b) =>
          this.client.execute(
            `INSERT INTO ${ksName}.bucket_snapshots (bucket_id, cut, stat) VALUES (?, ?, ?)`,
            [b.bucketId, c.cut, BucketSnapshotCodec.encode(b)],
            { isIdempotent: true },
          ),
        ),
      );
    await this.client.execute(
      `INSERT INTO ${ksName}.snapshot_combinations (ks, cut, parts, buckets, oldest_completed_at, combined_at) VALUES (?, ?, ?, ?, ?, ?)`,
      [ks, c.cut, [...c.parts], c.buckets.length, c.oldestCompletedAt, this.clock.now()],
      { isIdempotent: true },
    );
  }

  /** The newest combination, if any. */
  async latestCombination(ks: string): Promise<CombinationInfo | undefined> {
    const rs = await this.client.execute(
      `SELECT cut, parts, buckets, oldest_completed_at, combined_at FROM ${this.client.keyspace}.snapshot_combinations WHERE ks = ? LIMIT 1`,
      [ks],
      { isIdempotent: true },
    );
    const r = rs.first();
    if (!r) return undefined;
    return {
      cut: r['cut'] as Date,
      parts: (r['parts'] as string[] | null) ?? [],
      buckets: Number(r['buckets'] ?? 0),
      oldestCompletedAt: r['oldest_completed_at'] as Date,
      combinedAt: r['combined_at'] as Date,
    };
  }

  /** A bucket in the newest combination: two single-row reads. */
  async latestBucket(ks: string, bucketId: string): Promise<LatestBucketSnapshot | undefined> {
    const combination = await this.latestCombination(ks);
    if (!combination) return undefined;
    const bucket = await this.bucketAt(bucketId, combination.cut);
    return { combination, ...(bucket ? { bucket } : {}) };
  }

  /** A bucket's figures in the combination of that cut (a row never changes once written); none: it had nothing before the cut. */
  async bucketAt(bucketId: string, cut: Date): Promise<BucketSnapshot | undefined> {
    const rs = await this.client.execute(
      `SELECT stat FROM ${this.client.keyspace}.bucket_snapshots WHERE bucket_id = ? AND cut = ?`,
      [bucketId, cut],
      { isIdempotent: true },
    );
    const r = rs.first();
    return r ? BucketSnapshotCodec.decode(r['stat'] as string) : undefined;
  }
}
