import { types } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';
import { num } from './statement';

/** What the quota ledger says a bucket holds (see migration 009 for what counts). */
export interface LedgerUsage {
  bytes: number;
  objects: number;
}

/**
 * The `bucket_quota_ledger` counters (migration 009): the one owner of that table, used by every
 * writer (gateway, scheduler) and reader (admission checks, admin usage).
 *
 * Counter updates are not idempotent: `add` is sent once and never retried by this class (a
 * timed-out increment may or may not have landed); the caller counts the failure, and a re-base
 * from an exact recount corrects the drift.
 */
export class QuotaLedgerRepository {
  constructor(private readonly client: CassandraClient) {}

  /** The counters of a bucket, read now ({0, 0} for a bucket never counted). */
  async get(bucketId: string): Promise<LedgerUsage> {
    const rs = await this.client.execute(`SELECT bytes, objects FROM bucket_quota_ledger WHERE bucket_id = ?`, [bucketId]);
    const r = rs.first();
    return r ? { bytes: num(r['bytes'] ?? 0), objects: num(r['objects'] ?? 0) } : { bytes: 0, objects: 0 };
  }

  /** Adds (or, negative, subtracts) bytes and objects; one attempt, never retried (see the class comment). */
  async add(bucketId: string, bytes: number, objects: number): Promise<void> {
    if (bytes === 0 && objects === 0) return;
    await this.client.execute(`UPDATE bucket_quota_ledger SET bytes = bytes + ?, objects = objects + ? WHERE bucket_id = ?`, [
      types.Long.fromNumber(Math.trunc(bytes)),
      types.Long.fromNumber(Math.trunc(objects)),
      bucketId,
    ]);
  }
}
