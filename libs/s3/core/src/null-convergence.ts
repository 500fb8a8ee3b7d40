import type { ConvergenceMetricsSink } from './convergence-metrics';
import { quotaOf } from './quota/quota-guard';
import type { S3CoreSettings } from './s3-core.options';
import type { BucketKey } from './version-data';

/**
 * Keys this process wrote lately, at most `maxEntries` of them; the least recently touched is
 * forgotten first. O(1) per touch, nothing allocated per touch but the Map's entry: a Map of each
 * key's latest touch, and the touches in order in two parallel arrays, whose outdated entries are
 * skipped (and dropped when the arrays outgrow twice the Map). Not a Set whose first entry is
 * deleted: V8 leaves deleted entries in place until it rehashes, and finding the first live one
 * walked over all of them (27 µs a touch at 65,536 keys).
 */
export class RecentKeys {
  private readonly latest = new Map<string, number>();
  private keys: string[] = [];
  private ats: number[] = [];
  private head = 0;
  private touches = 0;

  constructor(private readonly maxEntries: number) {}

  /** Records `key` as written now; true when it was already among the recent keys. */
  touch(key: string): boolean {
    if (this.maxEntries <= 0) return false;
    const seen = this.latest.has(key);
    const at = ++this.touches;
    this.latest.set(key, at);
    this.keys.push(key);
    this.ats.push(at);
    while (this.latest.size > this.maxEntries) {
      const oldest = this.keys[this.head]!;
      if (this.latest.get(oldest) === this.ats[this.head]) this.latest.delete(oldest);
      this.head++;
    }
    if (this.keys.length > 2 * this.maxEntries + 16) this.compact();
    return seen;
  }

  get size(): number {
    return this.latest.size;
  }

  private compact(): void {
    const keys: string[] = [];
    const ats: number[] = [];
    for (let i = this.head; i < this.keys.length; i++) {
      if (this.latest.get(this.keys[i]!) !== this.ats[i]) continue;
      keys.push(this.keys[i]!);
      ats.push(this.ats[i]!);
    }
    this.keys = keys;
    this.ats = ats;
    this.head = 0;
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
