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
}

/**
 * The single place where the S3 core reports size changes, for real-time statistics and quotas.
 * Called after the change is durable; a racing cleanup may report a removal twice (statistics are
 * corrected by the next snapshot).
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
