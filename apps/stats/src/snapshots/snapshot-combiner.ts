import { Clock } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';
import { CombinedSnapshot, combineSnapshots, SnapshotsTooFarApartError } from '@ostore/stats/snapshot';
import { CombinationInfo, SnapshotStore } from '@ostore/stats/snapshot-store';
import { SnapshotMetrics } from './snapshot.metrics';

/** What one combination step did. */
export type CombineOutcome = 'combined' | 'unchanged' | 'too_far_apart' | 'none';

/**
 * Combines the scanner hosts' completed snapshots (`host_snapshots`, every host and table of the
 * keyspace) into one per bucket at their common cut, and records it (`bucket_snapshots`, then
 * `snapshot_combinations`). A step combines only when a host snapshot completed after the newest
 * combination was written; any number of stats processes may run it (the rows they write for
 * the same inputs are the same).
 *
 * The first combination of a cut is kept: newer passes of the same hosts' tables at the same cut
 * (passes more often than the 5-minute grid) do not replace it, so a bucket's row at a cut never
 * changes, as readers assume (they keep it until the cut moves). A later pass at the same cut
 * would count wrongly what changed since the cut: a removal of an older version is missing from
 * it and subtracted again by its delta, a version in flight at the cut is in it and added again
 * by its delta, and the parts of an upload completed since are in neither (README, "How exact").
 * A combination of other hosts or tables, or at another cut, replaces it as before. The scanner
 * keeps each table's first completed pass of a cut in `host_snapshots` for the same reason
 * (`replacesHostSnapshot`), so the first combination of a cut holds those first passes however
 * late this step runs after the cut (e.g. a stats app down across the boundary).
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
        const next = combineSnapshots(parts);
        if (!next) outcome = 'none';
        else if (latest && sameCombination(latest, next)) outcome = 'unchanged';
        else {
          combined = next;
          await this.store.saveCombination(this.keyspace, next);
          outcome = 'combined';
          this.log.info('host snapshots combined', { cut: next.cut.toISOString(), parts: next.parts, buckets: next.buckets.length });
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

/** The same cut from the same hosts' tables: the newer passes would only re-count what changed since the cut. */
function sameCombination(latest: CombinationInfo, next: CombinedSnapshot): boolean {
  const parts = [...latest.parts].sort();
  return (
    latest.cut.getTime() === next.cut.getTime() &&
    parts.length === next.parts.length &&
    parts.every((p, i) => p === next.parts[i])
  );
}
