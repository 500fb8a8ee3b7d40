import type { Counter, Gauge, Histogram } from 'prom-client';
import type { Clock } from '@ostore/shared/clock';
import type { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import type { BlockLifecycleSettings } from './block-lifecycle.settings';
import { BlockReclaimer } from './block-reclaimer';
import { settleLimitedAsync } from './concurrency';
import {
  BlockStateRepository,
  GC_BUCKET_MS,
  GcCandidate,
  hourBucketOf,
} from './state/block-state.repository';

/** What one GC pass did. */
export interface GcRunReport {
  /** (shard, hour) partitions of `blocks_in_flight` read. */
  buckets: number;
  /** Buckets marked done by this pass (never read again). */
  bucketsCompleted: number;
  /** Candidates looked at (old enough). */
  examined: number;
  reclaimedBlocks: number;
  reclaimedBytes: number;
  /** Candidates whose block is referenced, still in flight, or already gone. */
  kept: number;
  /** Candidates that failed (left for the next pass). */
  failed: number;
}

/**
 * Finds blocks that will never be committed or whose last reference is gone, and deletes them.
 *
 * Where it looks: `blocks_in_flight ((shard, hour_bucket), block_id)`, written before any block's
 * bytes and before any reference is released, with a TTL (`candidateTtlSeconds`) far longer than
 * the in-flight status TTL — so a block stays findable after its status row expired. A pass reads
 * every (shard, hour) bucket from `now - candidateTtl` to `now - grace` that is not yet marked done
 * in `block_gc_progress`, and examines candidates created before `now - grace` (injected clock):
 *   - committed with a reference (a cheap non-serial read says so): kept;
 *   - otherwise the shared reclaim protocol (BlockReclaimer): 'writing' past grace, committed with
 *     no reference, 'deleting' left by a dead deleter, or an expired / broken status with bytes
 *     still stored — bytes deleted, then the status.
 * A bucket is marked done once every candidate in it was handled and the bucket ended more than
 * one bucket before the cutoff (slack for a writer that stalled between taking its timestamp and
 * recording its candidate). Candidates are never deleted — no tombstones in these partitions —
 * they expire by TTL (TWCS drops whole expired SSTables).
 *
 * Idempotent and safe to run on every gateway at once: every deletion is a compare-and-set, and a
 * second collector at most repeats reads. A pass in progress is shared by concurrent callers.
 */
export class BlockGarbageCollector {
  private readonly log: ContextLogger;
  private running?: Promise<GcRunReport>;
  private readonly reclaimedBlocks: Counter;
  private readonly reclaimedBytes: Counter;
  private readonly examined: Counter;
  private readonly failures: Counter;
  private readonly runSeconds: Histogram;
  private readonly lastSuccess: Gauge;

  constructor(
    private readonly repo: BlockStateRepository,
    private readonly reclaimer: BlockReclaimer,
    private readonly settings: BlockLifecycleSettings,
    private readonly clock: Clock,
    metrics: MetricsRegistry,
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(BlockGarbageCollector.name);
    this.reclaimedBlocks = metrics.counter(
      'ostore_block_gc_reclaimed_blocks_total',
      'Blocks deleted by the block GC',
    );
    this.reclaimedBytes = metrics.counter(
      'ostore_block_gc_reclaimed_bytes_total',
      'Bytes deleted by the block GC',
    );
    this.examined = metrics.counter('ostore_block_gc_examined_blocks_total', 'GC candidates examined');
    this.failures = metrics.counter(
      'ostore_block_gc_failures_total',
      'GC candidates that failed and wait for the next pass',
    );
    this.runSeconds = metrics.histogram(
      'ostore_block_gc_run_duration_seconds',
      'Duration of one block GC pass',
      [],
      [0.1, 0.5, 1, 5, 15, 60, 300, 900],
    );
    this.lastSuccess = metrics.gauge(
      'ostore_block_gc_last_success_timestamp_seconds',
      'End of the last block GC pass without failures',
    );
  }

  /** One pass over every pending bucket. Concurrent calls share the pass in progress. */
  runOnce(): Promise<GcRunReport> {
    this.running ??= this.pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(): Promise<GcRunReport> {
    const endTimer = this.runSeconds.startTimer();
    const now = this.clock.nowMs();
    const cutoff = now - this.settings.gcGraceMs;
    const first = hourBucketOf(now - this.settings.candidateTtlSeconds * 1000);
    const last = hourBucketOf(cutoff);
    const report: GcRunReport = {
      buckets: 0,
      bucketsCompleted: 0,
      examined: 0,
      reclaimedBlocks: 0,
      reclaimedBytes: 0,
      kept: 0,
      failed: 0,
    };
    const done = await this.repo.doneBuckets(first);
    for (let bucket = first; bucket <= last; bucket++) {
      for (let shard = 0; shard < this.settings.gcShards; shard++) {
        if (done.has(`${bucket}:${shard}`)) continue;
        report.buckets++;
        const complete = await this.sweepBucket(shard, bucket, cutoff, report);
        if (complete && (bucket + 2) * GC_BUCKET_MS <= cutoff) {
          await this.repo.markBucketDone(bucket, shard, new Date(now), this.settings.candidateTtlSeconds);
          report.bucketsCompleted++;
        }
      }
    }
    endTimer();
    if (report.failed === 0) this.lastSuccess.set(now / 1000);
    const fields = { ...report, cutoff: new Date(cutoff).toISOString() };
    if (report.failed > 0) this.log.warn('block gc pass left failures for the next pass', fields);
    else if (report.reclaimedBlocks > 0) this.log.info('block gc pass reclaimed blocks', fields);
    else this.log.debug('block gc pass', fields);
    return report;
  }

  /** Handles one bucket; true when every candidate in it is settled for good. */
  private async sweepBucket(
    shard: number,
    bucket: number,
    cutoff: number,
    report: GcRunReport,
  ): Promise<boolean> {
    let complete = true;
    const errors = await settleLimitedAsync(
      this.repo.candidates(shard, bucket),
      this.settings.concurrency,
      async (c) => {
        if (c.createdAt.getTime() > cutoff) {
          complete = false;
          return;
        }
        report.examined++;
        this.examined.inc();
        const outcome = await this.examine(c, cutoff);
        if (outcome === 'reclaimed') {
          report.reclaimedBlocks++;
          report.reclaimedBytes += c.size;
          this.reclaimedBlocks.inc();
          this.reclaimedBytes.inc(c.size);
        } else {
          report.kept++;
          if (outcome === 'in-flight') complete = false;
        }
      },
    );
    if (errors.length) {
      report.failed += errors.length;
      this.failures.inc(errors.length);
      this.log.warn('block gc candidates failed', {
        shard,
        bucket,
        failed: errors.length,
        err: (errors[0] as Error).message,
      });
      return false;
    }
    return complete;
  }

  private async examine(c: GcCandidate, cutoff: number) {
    // Most candidates are blocks that were committed normally: a plain read settles them without Paxos.
    const quick = await this.repo.read(c.blockId, false);
    if (quick.kind === 'alive' && quick.state.status === 'committed' && quick.state.firstRef !== undefined) {
      return 'referenced' as const;
    }
    return this.reclaimer.reclaim(c, { reason: 'gc', writingCreatedBefore: cutoff, trustAbsent: false });
  }
}
