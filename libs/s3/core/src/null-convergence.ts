import type { ConvergenceMetricsSink } from './convergence-metrics';
import { quotaOf } from './quota/quota-guard';
import { RecentMap } from './recent-map';
import type { S3CoreSettings } from './s3-core.options';
import type { BucketKey } from './version-data';

/** Keys this process wrote lately, at most `maxEntries` of them; the least recently touched is forgotten first. */
export class RecentKeys {
  private readonly keys: RecentMap<true>;

  constructor(maxEntries: number) {
    this.keys = new RecentMap(maxEntries);
  }

  /** Records `key` as written now; true when it was already among the recent keys. */
  touch(key: string): boolean {
    const seen = this.keys.has(key);
    this.keys.set(key, true);
    return seen;
  }

  get size(): number {
    return this.keys.size;
  }
}

/** What of a commit decides who converges its key's null rows. */
export interface NullWrite {
  bucket: BucketKey;
  key: string;
  kind: 'object' | 'marker' | 'ghost';
  isNull: boolean;
  /** The caller converges itself (lifecycle expiration). */
  deferNullConvergence?: boolean;
}

/**
 * Whether the writer of a null version converges the key's null rows itself (VersionStore.commit,
 * step 6) or leaves them to the lifecycle scan (S3CoreSettings.nullConvergence 'scan').
 *
 * With 'scan', an object's writer converges only where waiting for the scan would show: a bucket
 * with a quota (its ledger must stay exact) and a key it wrote a null version of lately (then the
 * key surely has a row to replace, and a key rewritten over and over keeps at most one stale row
 * per process instead of one per write until the next scan). A marker or ghost always converges:
 * a deleted object's row must go before a ghost's TTL could serve it again, and a DELETE frees its
 * space at once.
 */
export class NullConvergencePolicy {
  private readonly recent: RecentKeys;

  constructor(
    private readonly settings: Pick<S3CoreSettings, 'nullConvergence' | 'recentNullKeys'>,
    private readonly metrics: ConvergenceMetricsSink,
  ) {
    this.recent = new RecentKeys(settings.nullConvergence === 'scan' ? settings.recentNullKeys : 0);
  }

  convergesAtWrite(w: NullWrite): boolean {
    if (!w.isNull || w.deferNullConvergence) return false;
    if (this.settings.nullConvergence === 'write' || w.kind !== 'object') return true;
    if (quotaOf(w.bucket)) return true;
    if (this.recent.touch(`${w.bucket.bucketId}\u0000${w.key}`)) return true;
    this.metrics.deferred();
    return false;
  }
}
