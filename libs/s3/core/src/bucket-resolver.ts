import type { BucketRow, Metastore } from '@ostore/metastore/data-access';
import type { Clock } from '@ostore/shared/clock';
import type { BucketRef } from './api';
import { noSuchBucket } from './errors';
import type { BucketKey } from './version-data';

/** Most bucket rows kept by one process (the oldest entry goes first). */
const BUCKET_CACHE_LIMIT = 10_000;

/**
 * Bucket rows by name, cached per process for `cacheTtlMs` (on the clock's monotonic time, which a
 * wall clock stepped back does not stretch; default 2 s in the gateway), so that a request reads its bucket row at most once and usually not at all.
 *
 * Staleness window: a change made through this process (versioning, ACL, tags, lifecycle,
 * deletion) drops the entry at once; a change made by another gateway is seen here within the
 * TTL — until then this gateway may still, for example, write a null version into a bucket whose
 * versioning another gateway just enabled, or write into a bucket deleted there (data under a
 * dropped bucket id is unreachable garbage, as for a PUT racing DeleteBucket). A missing bucket
 * is never cached. Settings changes and DeleteBucket read the row afresh, and are conditional on
 * the bucket id anyway.
 */
export class BucketResolver {
  private readonly cache = new Map<string, { row: BucketRow; until: number }>();
  private readonly loading = new Map<string, Promise<BucketRow | undefined>>();

  constructor(
    private readonly ms: Metastore,
    private readonly clock: Clock,
    private readonly cacheTtlMs = 0,
  ) {}

  /**
   * The bucket an object operation addresses: the Bucket the caller resolved for this request
   * as it is, else the row of the name (possibly cached), or NoSuchBucket.
   */
  async target(ref: BucketRef): Promise<BucketKey> {
    return typeof ref === 'string' ? this.resolve(ref) : ref;
  }

  /** The bucket row, or NoSuchBucket; possibly cached (see the class comment for the window). */
  async resolve(name: string): Promise<BucketRow> {
    const hit = this.cache.get(name);
    if (hit && hit.until > this.clock.monotonicMs()) return hit.row;
    let load = this.loading.get(name);
    if (!load) {
      // concurrent misses of one name share one read
      load = this.load(name).finally(() => this.loading.delete(name));
      this.loading.set(name, load);
    }
    const row = await load;
    if (!row) throw noSuchBucket(name);
    return row;
  }

  /** The bucket row read now (never from the cache), or NoSuchBucket; refreshes the cache. */
  async fresh(name: string): Promise<BucketRow> {
    const row = await this.load(name);
    if (!row) throw noSuchBucket(name);
    return row;
  }

  /** Drops the cached row of a bucket (after this process changed or deleted it). */
  invalidate(name: string): void {
    this.cache.delete(name);
  }

  private async load(name: string): Promise<BucketRow | undefined> {
    const started = this.clock.monotonicMs();
    const row = await this.ms.buckets.get(name);
    if (!row) this.cache.delete(name);
    else if (this.cacheTtlMs > 0) {
      if (this.cache.size >= BUCKET_CACHE_LIMIT && !this.cache.has(name)) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.cache.delete(oldest);
      }
      // counted from before the read: the entry never outlives the TTL measured from the read
      this.cache.set(name, { row, until: started + this.cacheTtlMs });
    }
    return row;
  }
}
