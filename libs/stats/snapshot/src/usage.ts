import { BucketSnapshot } from './combine';

/** Sums of the usage deltas of a bucket over an interval. */
export interface DeltaSums {
  bytes: number;
  objects: number;
  events: number;
}

/** A bucket's usage now: its last combined snapshot + the deltas after the snapshot's cut. */
export interface SnapshotUsage {
  bucketId: string;
  bytes: number;
  objects: number;
  /** The cut of the snapshot used (absent: no snapshot yet, the deltas alone). */
  cut?: Date;
  /** Usage deltas counted after the cut. */
  deltaEvents: number;
  /** Deltas up to this instant are counted. */
  asOf: Date;
}

/**
 * Current usage = snapshot at its cut + every delta at or after the cut (the cut is on the
 * aggregate grid, so the deltas are whole 5-minute aggregates: a bounded read).
 *
 * Objects are counted as the deltas count them (README "What counts": every version that holds
 * data, current and noncurrent), so the snapshot's figure added to them is its `versions`, not
 * its `objects` (keys whose current version holds data, a report figure): in a versioned bucket
 * the two differ by every noncurrent version and every version under a delete marker.
 */
export function usageFrom(
  bucketId: string,
  snapshot: Pick<BucketSnapshot, 'bytes' | 'versions' | 'cut'> | undefined,
  after: DeltaSums,
  asOf: Date,
): SnapshotUsage {
  return {
    bucketId,
    bytes: (snapshot?.bytes ?? 0) + after.bytes,
    objects: (snapshot?.versions ?? 0) + after.objects,
    ...(snapshot ? { cut: snapshot.cut } : {}),
    deltaEvents: after.events,
    asOf,
  };
}
