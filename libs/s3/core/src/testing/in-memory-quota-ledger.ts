import type { LedgerUsage, QuotaLedgerRepository } from '@ostore/metastore/data-access';

/**
 * The quota ledger (`bucket_quota_ledger` counters) in memory, for unit tests and the quota
 * micro-benchmark: the two calls QuotaGuard makes, answered at once (a resolved promise), each one
 * counted so that a caller can tell how many ledger requests a path makes.
 */
export class InMemoryQuotaLedger implements Pick<QuotaLedgerRepository, 'get' | 'add'> {
  private readonly values = new Map<string, LedgerUsage>();
  /** Ledger requests made so far: `get` calls and `add` calls that would reach Cassandra. */
  readonly requests = { reads: 0, writes: 0 };

  /** Sets what the ledger holds for a bucket (a test's or bench's starting point; not counted). */
  set(bucketId: string, usage: LedgerUsage): void {
    this.values.set(bucketId, { ...usage });
  }

  /** What the ledger holds for a bucket now (not counted). */
  peek(bucketId: string): LedgerUsage {
    return { ...(this.values.get(bucketId) ?? { bytes: 0, objects: 0 }) };
  }

  get(bucketId: string): Promise<LedgerUsage> {
    this.requests.reads++;
    return Promise.resolve(this.peek(bucketId));
  }

  add(bucketId: string, bytes: number, objects: number): Promise<void> {
    // the repository sends nothing for 0, 0
    if (bytes === 0 && objects === 0) return Promise.resolve();
    this.requests.writes++;
    const v = this.peek(bucketId);
    this.values.set(bucketId, { bytes: v.bytes + Math.trunc(bytes), objects: v.objects + Math.trunc(objects) });
    return Promise.resolve();
  }
}
