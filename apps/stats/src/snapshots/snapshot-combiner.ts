import { Clock } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';
import { CombinedSnapshot, combineSnapshots, SnapshotsTooFarApartError } from '@ostore/stats/snapshot';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { SnapshotMetrics } from './snapshot.metrics';

/** What one combination step did. */
export type CombineOutcome = 'combined' | 'unchanged' | 'too_far_apart' | 'none';

/**
 * Combines the scanner hosts' completed snapshots (`host_snapshots`, every host and table of the
 * keyspace) into one per bucket at their common cut, and records it (`bucket_snapshots`, then
 * `snapshot_combinations`). A step combines only when a host snapshot completed after the newest
 * combination was written; any number of stats processes may run it (the rows they write for
 * the same inputs are the same).
 */
export class SnapshotCombiner {
  private readonly startedMs: number;

  constructor(
    private readonly store: SnapshotStore,
    private readonly keyspace: string,
    private readonly clock: Clock,
    private readonly metrics: SnapshotMetrics,
    private readonly log: ContextLogger,
  ) {
    this.startedMs = clock.nowMs();
  }

  async combineOnce(): Promise<{ outcome: CombineOutcome; combined?: CombinedSnapshot }> {
    const parts = await this.store.hostSnapshots(this.keyspace, (source, handler, err) =>
      this.log.warn('host snapshot unreadable; left out', { source, handler, err: err.message }),
    );
    const latest = await this.store.latestCombination(this.keyspace);
    const newest = Math.max(0, ...parts.map((p) => p.completedAt.getTime()));
    let outcome: CombineOutcome;
    let combined: CombinedSnapshot | undefined;
    if (parts.length === 0) outcome = 'none';
    else if (latest && newest <= latest.combinedAt.getTime()) outcome = 'unchanged';
    else
      try {
        combined = combineSnapshots(parts);
        if (!combined) outcome = 'none';
        else {
          await this.store.saveCombination(this.keyspace, combined);
          outcome = 'combined';
          this.log.info('host snapshots combined', { cut: combined.cut.toISOString(), parts: combined.parts, buckets: combined.buckets.length });
        }
      } catch (e) {
        if (!(e instanceof SnapshotsTooFarApartError)) throw e;
        outcome = 'too_far_apart';
        this.log.warn('host snapshots too far apart to combine; the newest combination stays', { source: e.source, cut: e.cut.toISOString() });
      }
    this.metrics.combinations.inc({ outcome });
    await this.observe();
    return { outcome, ...(combined ? { combined } : {}) };
  }

  /**
   * Sets the age and size gauges from the newest combination; without one, the age is the time
   * since this process started (no snapshot for at least that long), so the alert fires then too.
   */
  private async observe(): Promise<void> {
    const latest = await this.store.latestCombination(this.keyspace);
    if (!latest) {
      this.metrics.ageSeconds.set((this.clock.nowMs() - this.startedMs) / 1000);
      return;
    }
    this.metrics.ageSeconds.set(Math.max(0, (this.clock.nowMs() - latest.oldestCompletedAt.getTime()) / 1000));
    this.metrics.buckets.set(latest.buckets);
    this.metrics.hosts.set(latest.parts.length);
  }
}
