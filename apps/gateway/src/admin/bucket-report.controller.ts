import { Controller, Get, Inject, NotFoundException, Param, Provider, UseGuards } from '@nestjs/common';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE, S3DomainError } from '@ostore/s3/core';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { BucketSnapshot, emptyBucketSnapshot } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { AdminTokenGuard } from './admin.controller';

/** What `GET /admin/buckets/:name/report` answers (the CLI's `bucket report` renders it). */
export interface BucketReport {
  bucket: string;
  bucketId: string;
  /** The newest combined snapshot; null before the stats app has combined one. */
  snapshot: {
    cut: string;
    combinedAt: string;
    /** Seconds since the oldest host snapshot in the combination completed. */
    ageSeconds: number;
    hostSnapshots: number;
  } | null;
  /** The bucket's figures at the cut (zeros when it had nothing before the cut). */
  figures: Omit<BucketSnapshot, 'bucketId' | 'name' | 'cut'> | null;
}

/**
 * `bucket report <bucket>` of the admin API: the bucket's figures, tops and anomalies in the newest
 * combined scan snapshot (`bucket_snapshots`), read through the snapshot store: two single-row reads.
 */
@Controller('admin/buckets')
@UseGuards(AdminTokenGuard)
export class BucketReportController {
  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    private readonly snapshots: SnapshotStore,
    private readonly cassandra: CassandraClient,
    private readonly clock: Clock,
  ) {}

  @Get(':name/report')
  async report(@Param('name') name: string): Promise<BucketReport> {
    let bucketId: string;
    try {
      bucketId = (await this.buckets.get(name)).bucketId;
    } catch (e) {
      if (e instanceof S3DomainError && /NoSuch/.test(e.code)) throw new NotFoundException(`no bucket "${name}"`);
      throw e;
    }
    const latest = await this.snapshots.latestBucket(this.cassandra.keyspace, bucketId);
    if (!latest) return { bucket: name, bucketId, snapshot: null, figures: null };
    const c = latest.combination;
    const { bucketId: _id, name: _name, cut: _cut, ...figures } = latest.bucket ?? emptyBucketSnapshot(bucketId, c.cut);
    return {
      bucket: name,
      bucketId,
      snapshot: {
        cut: c.cut.toISOString(),
        combinedAt: c.combinedAt.toISOString(),
        ageSeconds: Math.max(0, Math.round((this.clock.nowMs() - c.oldestCompletedAt.getTime()) / 1000)),
        hostSnapshots: c.parts.length,
      },
      figures,
    };
  }
}

/** The snapshot store over the gateway's session. */
export const snapshotStoreProvider: Provider = {
  provide: SnapshotStore,
  useFactory: (c: CassandraClient, clock: Clock) => new SnapshotStore(c, clock),
  inject: [CassandraClient, Clock],
};
