import { Clock } from '@ostore/shared/clock';
import { UsageAggregateStore, UsageTotalsStore } from '@ostore/stats/data-access';
import { WINDOW_MS } from '@ostore/stats/domain';
import { DeltaSums, emptyBucketSnapshot, SnapshotUsage, usageFrom } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';

/**
 * The current-usage read model: the bucket's figures in the newest combined snapshot + the usage
 * deltas at or after its cut. The cut lies on the 5-minute aggregate grid, so the deltas are whole
 * aggregates: one row per window since the cut (about 12-25 for an hourly scan), never a re-sum
 * from the beginning. A bucket absent from the newest combination had nothing before its cut.
 * Before any combination exists: the running totals of the events alone.
 */
export class CurrentUsageReader {
  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly usage: { aggregates: UsageAggregateStore; totals: UsageTotalsStore },
    private readonly keyspace: string,
    private readonly clock: Clock,
  ) {}

  async current(bucketId: string): Promise<SnapshotUsage> {
    const now = this.clock.now();
    const latest = await this.snapshots.latestBucket(this.keyspace, bucketId);
    if (!latest) {
      const totals = await this.usage.totals.current(bucketId);
      return usageFrom(bucketId, undefined, totals, totals.asOf);
    }
    const cut = latest.combination.cut;
    const after: DeltaSums = { bytes: 0, objects: 0, events: 0 };
    for await (const a of this.usage.aggregates.aggregates(bucketId, cut, new Date(now.getTime() + WINDOW_MS))) {
      after.bytes += a.bytes;
      after.objects += a.objects;
      after.events += a.events;
    }
    return usageFrom(bucketId, latest.bucket ?? emptyBucketSnapshot(bucketId, cut), after, now);
  }
}
