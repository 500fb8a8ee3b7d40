import { Provider } from '@nestjs/common';
import type { BucketSummary, BucketUsage } from '@ostore/s3/core';

/** What the stats app answers for one bucket (`GET /usage/buckets/:bucketId`). */
export interface StatsUsage {
  bytes: number;
  objects: number;
  asOf: string;
  cut?: string;
  deltaEvents: number;
  snapshotAgeSeconds?: number;
}

/** A bucket's usage from the stats app, as `bucket usage` shows it for a bucket without a quota. */
export type StatsBucketUsage = Omit<BucketUsage, 'source' | 'asOf'> & {
  source: 'stats';
  asOf: string;
  /** The cut of the combined scan snapshot the figures start from; absent before the first one. */
  snapshotCut?: string;
  snapshotAgeSeconds?: number;
};

/**
 * The stats app's current-usage endpoint as the admin API reads it (`ADMIN_STATS_URL`): the newest
 * combined snapshot + the usage deltas since its cut, a few single-partition reads, instead of an
 * exact recount of the metastore. Without a URL it is off, and `bucket usage` recounts.
 */
export class StatsUsageClient {
  constructor(
    readonly baseUrl: string | undefined,
    private readonly timeoutMs = 2000,
  ) {}

  get enabled(): boolean {
    return this.baseUrl !== undefined;
  }

  /** The bucket's usage now; throws when the stats app cannot be asked or answers an error. */
  async current(bucketId: string): Promise<StatsUsage> {
    if (!this.baseUrl) throw new Error('ADMIN_STATS_URL is not set');
    const res = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/usage/buckets/${encodeURIComponent(bucketId)}`, {
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (!res.ok) throw new Error(`the stats app answered HTTP ${res.status}`);
    return (await res.json()) as StatsUsage;
  }

  /** `bucket usage` from the stats answer. */
  static usageView(bucket: { name: string; bucketId: string }, u: StatsUsage): StatsBucketUsage {
    return {
      bucket: bucket.name,
      bucketId: bucket.bucketId,
      bytes: u.bytes,
      objects: u.objects,
      source: 'stats',
      asOf: u.asOf,
      ...(u.cut ? { snapshotCut: u.cut } : {}),
      ...(u.snapshotAgeSeconds === undefined ? {} : { snapshotAgeSeconds: u.snapshotAgeSeconds }),
    };
  }

  /**
   * `bucket list` with the stats app's usage for buckets without a quota (quota buckets keep the
   * live ledger's); a bucket the stats app cannot answer for keeps no usage. At most 16 asked at once.
   */
  async withUsage(list: BucketSummary[]): Promise<(BucketSummary & { usageSource?: 'ledger' | 'stats' })[]> {
    const out: (BucketSummary & { usageSource?: 'ledger' | 'stats' })[] = list.map((b) => (b.usage ? { ...b, usageSource: 'ledger' } : b));
    if (!this.enabled) return out;
    const todo = out.map((b, i) => ({ b, i })).filter(({ b }) => !b.usage);
    let next = 0;
    const worker = async () => {
      while (next < todo.length) {
        const { b, i } = todo[next++];
        const u = await this.current(b.bucketId).catch(() => undefined);
        if (u) out[i] = { ...b, usage: { bytes: u.bytes, objects: u.objects }, usageSource: 'stats' };
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, todo.length) }, worker));
    return out;
  }
}

/** The client over the gateway's `ADMIN_STATS_URL`. */
export const statsUsageProvider = (statsUrl: string | undefined): Provider => ({
  provide: StatsUsageClient,
  useValue: new StatsUsageClient(statsUrl),
});
