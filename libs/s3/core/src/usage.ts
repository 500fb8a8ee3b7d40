/** One change of a bucket's stored bytes (seed 000: +blkStore, -blkRemove, +blkCopy). */
export interface UsageEvent {
  bucketId: string;
  bucket: string;
  kind: 'store' | 'remove' | 'copy';
  /** Positive for store and copy, negative for remove. */
  bytes: number;
  /**
   * Objects added (+1: a version holding data committed) or removed (−1); 0 for multipart parts,
   * which are bytes but not objects (see the README's quota section for what counts).
   */
  objects: number;
  /**
   * The change's id when several processes may report the same change (racing removers of one
   * version row): derived from what changed, so the stats side counts it once. Otherwise the
   * recorder gives each event a fresh id.
   */
  eventId?: string;
}

/**
 * The single place where the S3 core reports size changes, for real-time statistics and quotas.
 * Called after the change is durable. A removal that racing cleanups may both report carries an
 * id derived from the removed row (`removalEventId`), so the stats side counts it once; a quota
 * bucket's ledger may still see it twice (corrected by the next snapshot).
 */
export interface UsageRecorder {
  record(event: UsageEvent): void;
}

export class NoopUsageRecorder implements UsageRecorder {
  record(): void {
    // statistics are a later issue
  }
}

export const USAGE_RECORDER = Symbol('USAGE_RECORDER');

/** The usage event id of the removal of one version row: the same for every process removing it. */
export function removalEventId(vid: string): string {
  return `rm:${vid}`;
}

/** The usage event id of the removal of one multipart part row. */
export function partRemovalEventId(uploadId: string, partNumber: number, pid: string): string {
  return `rm-part:${uploadId}:${partNumber}:${pid}`;
}
