import { Clock } from '@ostore/shared/clock';
import { WINDOW_MS } from '@ostore/stats/domain';
import {
  BucketSnapshot,
  DeltaSums,
  emptyBucketSnapshot,
  SnapshotUsage,
  usageFrom,
} from '@ostore/stats/snapshot';
import { CombinationInfo, SnapshotStore } from '@ostore/stats/snapshot-store';
import { OwnedWindows } from './owned-windows';
import type { StatsMetrics } from './stats.metrics';
import { UsageAggregateStore } from './usage-aggregate.store';
import { UsageTotalsStore } from './usage-totals.store';

/** Current usage with where it comes from: what the stats app's `GET /usage/buckets/:bucketId` answers. */
export interface BucketCurrentUsage extends SnapshotUsage {
  /** Seconds since the oldest host snapshot of the combination used completed; absent without a snapshot. */
  snapshotAgeSeconds?: number;
}

/** How long the newest combination's row is reused, and how many bucket rows of it are kept in memory. */
export interface CurrentUsageCache {
  combinationMs: number;
  maxBuckets: number;
}

const DEFAULT_CACHE: CurrentUsageCache = { combinationMs: 1000, maxBuckets: 100_000 };

/** How far past now a seed of the in-memory view reads (windows of producers with clocks ahead); it is re-read after this. */
const SEED_AHEAD_MS = 24 * 3600_000;

/**
 * The current-usage read model: the bucket's figures in the newest combined snapshot + the usage
 * deltas at or after its cut. The cut lies on the 5-minute aggregate grid, so the deltas are whole
 * aggregates: one row per window since the cut (about 12-25 for an hourly scan), never a re-sum
 * from the beginning. A bucket absent from the newest combination had nothing before its cut.
 * Before any combination exists: the running totals of the events alone.
 *
 * One Cassandra read per answer in the steady state: the combination row is reused for
 * `combinationMs` (an answer from a combination that old is still exact, as its snapshot and the
 * deltas since its cut go together) and a bucket's row of a combination never changes, so it is
 * kept until the cut moves; only the aggregates since the cut are read each time. With an
 * OwnedWindows view (the app's), a bucket of a usage-topic partition this process reads is
 * answered without any Cassandra read: the view holds its aggregates since the cut (seeded once
 * by that read, then kept by the recorder's writes); any other bucket is read as above. Each
 * answer is counted by where its deltas came from (`ostore_stats_current_usage_answers_total`:
 * `memory` from that view, `cassandra` from the aggregates or the running totals); the
 * combination and the bucket's snapshot row are cached either way.
 */
export class CurrentUsageReader {
  private combination?: { info: CombinationInfo | undefined; readAtMs: number };
  private readonly buckets = new Map<string, BucketSnapshot | undefined>();
  private bucketsCutMs = -1;

  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly usage: { aggregates: UsageAggregateStore; totals: UsageTotalsStore },
    private readonly keyspace: string,
    private readonly clock: Clock,
    private readonly cache: CurrentUsageCache = DEFAULT_CACHE,
    private readonly owned?: OwnedWindows,
    private readonly metrics?: Pick<StatsMetrics, 'currentUsageAnswers'>,
  ) {}

  /** The bucket's bytes and objects now. */
  async current(bucketId: string): Promise<BucketCurrentUsage> {
    const now = this.clock.now();
    const combination = await this.latestCombination(now.getTime());
    if (!combination) {
      const totals = await this.usage.totals.current(bucketId);
      this.metrics?.currentUsageAnswers.inc({ path: 'cassandra' });
      return usageFrom(bucketId, undefined, totals, totals.asOf);
    }
    const cut = combination.cut;
    const [bucket, { after, path }] = await Promise.all([
      this.bucketAt(bucketId, cut),
      this.deltasSince(bucketId, cut, now),
    ]);
    this.metrics?.currentUsageAnswers.inc({ path });
    const ageMs = now.getTime() - combination.oldestCompletedAt.getTime();
    return {
      ...usageFrom(bucketId, bucket ?? emptyBucketSnapshot(bucketId, cut), after, now),
      snapshotAgeSeconds: Math.max(0, Math.round(ageMs / 1000)),
    };
  }

  private async latestCombination(nowMs: number): Promise<CombinationInfo | undefined> {
    const c = this.combination;
    if (c && nowMs - c.readAtMs < this.cache.combinationMs && nowMs >= c.readAtMs) return c.info;
    const info = await this.snapshots.latestCombination(this.keyspace);
    this.combination = { info, readAtMs: nowMs };
    return info;
  }

  private async bucketAt(bucketId: string, cut: Date): Promise<BucketSnapshot | undefined> {
    if (this.bucketsCutMs !== cut.getTime() || this.buckets.size >= this.cache.maxBuckets) {
      this.buckets.clear();
      this.bucketsCutMs = cut.getTime();
    }
    if (this.buckets.has(bucketId)) return this.buckets.get(bucketId);
    const bucket = await this.snapshots.bucketAt(bucketId, cut);
    if (this.bucketsCutMs === cut.getTime()) this.buckets.set(bucketId, bucket);
    return bucket;
  }

  private async deltasSince(
    bucketId: string,
    cut: Date,
    now: Date,
  ): Promise<{ after: DeltaSums; path: 'memory' | 'cassandra' }> {
    const to = now.getTime() + WINDOW_MS;
    const known = this.owned?.since(bucketId, cut.getTime(), to);
    if (known) return { after: known, path: 'memory' };
    const token = this.owned?.seedToken(bucketId);
    const seedTo = token ? now.getTime() + SEED_AHEAD_MS : to;
    const after: DeltaSums = { bytes: 0, objects: 0, events: 0 };
    const windows: { start: number; sums: DeltaSums }[] = [];
    for await (const a of this.usage.aggregates.aggregates(bucketId, cut, new Date(seedTo))) {
      const start = a.windowStart.getTime();
      if (token) windows.push({ start, sums: { bytes: a.bytes, objects: a.objects, events: a.events } });
      if (start >= to) continue;
      after.bytes += a.bytes;
      after.objects += a.objects;
      after.events += a.events;
    }
    if (token) this.owned?.seed(token, cut.getTime(), seedTo, windows);
    return { after, path: 'cassandra' };
  }
}
