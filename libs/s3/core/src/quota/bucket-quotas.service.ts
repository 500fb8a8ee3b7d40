import type { BucketRow, LedgerUsage, Metastore, UploadRow, VersionRow } from '@ostore/metastore/data-access';
import type { Clock } from '@ostore/shared/clock';
import { sleep } from '@ostore/shared/clock';
import type { BucketResolver } from '../bucket-resolver';
import { noSuchBucket, s3err } from '../errors';
import { uploadsSource, versionsSource } from '../listing/sources';
import { TreeWalker } from '../listing/tree-walker';
import { QuotaGuard, QuotaLimits, quotaOf } from './quota-guard';
import { NoopQuotaMetrics, QuotaMetricsSink } from './quota-metrics';

/** A bucket's usage as the admin API reports it. */
export interface BucketUsage {
  bucket: string;
  bucketId: string;
  bytes: number;
  objects: number;
  /** `ledger`: the live quota ledger (quota buckets); `recount`: an exact count of the metastore made now. */
  source: 'ledger' | 'recount';
  asOf: Date;
  quota?: QuotaLimits;
  /** used / limit per limited resource. */
  utilisation?: { bytes?: number; objects?: number };
}

/** One line of `bucket list`. */
export interface BucketSummary {
  name: string;
  bucketId: string;
  owner: string;
  createdAt: Date;
  quota?: QuotaLimits;
  /** The ledger's numbers for a quota bucket; absent for others (`bucket usage` recounts one). */
  usage?: { bytes: number; objects: number };
}

/** A change of limits: a number sets one, null clears it, undefined keeps it. */
export interface QuotaChange {
  maxBytes?: number | null;
  maxObjects?: number | null;
}

const utilisationOf = (quota: QuotaLimits | undefined, used: LedgerUsage) =>
  quota && {
    ...(quota.maxBytes === undefined ? {} : { bytes: quota.maxBytes > 0 ? used.bytes / quota.maxBytes : used.bytes > 0 ? Infinity : 0 }),
    ...(quota.maxObjects === undefined ? {} : { objects: quota.maxObjects > 0 ? used.objects / quota.maxObjects : used.objects > 0 ? Infinity : 0 }),
  };

/**
 * The admin side of quotas: list buckets, read usage, set and clear limits, recount.
 *
 * Setting a quota on a bucket re-bases its ledger from an exact recount of the metastore (every
 * version holding data and every part of an upload in progress), after waiting one bucket-cache
 * TTL so that every gateway has seen the quota and keeps the ledger up to date; a change committed
 * while the recount walks may be counted twice or missed once (the re-base adds exact − ledger,
 * with the ledger read after the walk) — a later `recount` corrects it.
 */
export class BucketQuotasService {
  constructor(
    private readonly ms: Metastore,
    private readonly resolver: BucketResolver,
    private readonly guard: Pick<QuotaGuard, 'flush'>,
    private readonly clock: Clock,
    private readonly cacheTtlMs: number,
    private readonly metrics: QuotaMetricsSink = new NoopQuotaMetrics(),
  ) {}

  /** Every bucket, by name, with its quota and (for quota buckets) the ledger's usage. */
  async list(): Promise<BucketSummary[]> {
    const rows = (await this.ms.buckets.all()).filter((r) => r.state !== 'deleting');
    rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return Promise.all(
      rows.map(async (r) => {
        const quota = quotaOf(r);
        return {
          name: r.name,
          bucketId: r.bucketId,
          owner: r.ownerName || r.ownerId,
          createdAt: r.createdAt,
          ...(quota ? { quota, usage: await this.guard.flush(r.bucketId).then(() => this.ms.quotaLedger.get(r.bucketId)) } : {}),
        };
      }),
    );
  }

  /** The bucket's usage: the ledger for a quota bucket, else an exact recount made now. */
  async usage(name: string): Promise<BucketUsage> {
    const row = await this.row(name);
    const quota = quotaOf(row);
    if (!quota) return { ...this.describe(row, await this.recount(row), 'recount'), asOf: this.clock.now() };
    // this process's summed changes first: through one gateway the answer is exact
    await this.guard.flush(row.bucketId);
    const used = await this.ms.quotaLedger.get(row.bucketId);
    this.metrics.observed(row.name, quota, used);
    return this.describe(row, used, 'ledger');
  }

  /** Changes the limits (merged with the current ones); a bucket gaining a quota gets its ledger re-based. */
  async setQuota(name: string, change: QuotaChange): Promise<BucketUsage> {
    for (const [field, v] of Object.entries(change))
      if (v !== undefined && v !== null && !(Number.isSafeInteger(v) && v >= 0)) throw s3err('InvalidArgument', `${field} must be a non-negative integer`);
    const row = await this.row(name);
    const had = quotaOf(row);
    const pick = (c: number | null | undefined, old: number | undefined) => (c === undefined ? old : (c ?? undefined));
    const next = { maxBytes: pick(change.maxBytes, row.quotaBytes), maxObjects: pick(change.maxObjects, row.quotaObjects) };
    if (!(await this.ms.buckets.setQuota(name, row.bucketId, next))) throw noSuchBucket(name);
    this.resolver.invalidate(name);
    const updated: BucketRow = { ...row, quotaBytes: next.maxBytes, quotaObjects: next.maxObjects };
    if (!had && quotaOf(updated)) {
      // every gateway must maintain the ledger before the recount it is re-based on
      await sleep(this.cacheTtlMs);
      return this.rebase(updated);
    }
    return quotaOf(updated) ? this.usage(name) : { ...this.describe(updated, await this.recount(updated), 'recount'), asOf: this.clock.now() };
  }

  /** Re-bases a quota bucket's ledger to an exact recount (reports the drift found). */
  async recountBucket(name: string): Promise<BucketUsage & { drift: LedgerUsage }> {
    const row = await this.row(name);
    if (!quotaOf(row)) throw s3err('InvalidRequest', `bucket ${name} has no quota: its usage has no ledger to re-base`);
    return this.rebase(row);
  }

  private async rebase(row: BucketRow): Promise<BucketUsage & { drift: LedgerUsage }> {
    const exact = await this.recount(row);
    await this.guard.flush(row.bucketId);
    const ledger = await this.ms.quotaLedger.get(row.bucketId);
    const drift = { bytes: ledger.bytes - exact.bytes, objects: ledger.objects - exact.objects };
    await this.ms.quotaLedger.add(row.bucketId, -drift.bytes, -drift.objects);
    this.metrics.drift(row.name, drift);
    this.metrics.observed(row.name, quotaOf(row)!, exact);
    return { ...this.describe(row, exact, 'recount'), asOf: this.clock.now(), drift };
  }

  /**
   * An exact count of what the bucket holds, by the ledger's rules: bytes of every version row
   * (current and noncurrent) and of every part row of an upload in progress; objects = version
   * rows that hold data (not delete markers, not ghosts).
   */
  async recount(row: Pick<BucketRow, 'bucketId'>): Promise<LedgerUsage> {
    const used = { bytes: 0, objects: 0 };
    const versions = new TreeWalker<VersionRow>(versionsSource(this.ms, row.bucketId), { pageSize: 1000 });
    for (let e = await versions.next(); e; e = await versions.next()) {
      if (e.kind !== 'row' || e.row.isDeleteMarker || e.row.isGhost) continue;
      used.bytes += e.row.size;
      used.objects++;
    }
    const uploads = new TreeWalker<UploadRow>(uploadsSource(this.ms, row.bucketId), { pageSize: 1000, keyFilter: () => (u) => !u.completed });
    for (let e = await uploads.next(); e; e = await uploads.next()) {
      if (e.kind !== 'row') continue;
      for await (const part of this.ms.uploads.allPartRows(e.row.uploadId)) used.bytes += part.size;
    }
    return used;
  }

  private async row(name: string): Promise<BucketRow> {
    const row = await this.ms.buckets.get(name);
    if (!row) throw noSuchBucket(name);
    return row;
  }

  private describe(row: BucketRow, used: LedgerUsage, source: BucketUsage['source']): BucketUsage {
    const quota = quotaOf(row);
    return {
      bucket: row.name,
      bucketId: row.bucketId,
      bytes: used.bytes,
      objects: used.objects,
      source,
      asOf: this.clock.now(),
      ...(quota ? { quota, utilisation: utilisationOf(quota, used) } : {}),
    };
  }
}
