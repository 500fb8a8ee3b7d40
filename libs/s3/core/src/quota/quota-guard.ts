import type { LedgerUsage, QuotaLedgerRepository } from '@ostore/metastore/data-access';
import type { ContextLogger } from '@ostore/shared/observability';
import { s3err } from '../errors';
import type { BucketKey } from '../bucket-key';
import { NoopQuotaMetrics, QuotaMetricsSink } from './quota-metrics';
import type { QuotaLimits } from './quota-limits';
export type { QuotaLimits } from './quota-limits';


/** The limits of a bucket row, or undefined for a bucket without a quota (which pays nothing). */
export function quotaOf(bucket: Pick<BucketKey, 'quotaBytes' | 'quotaObjects'>): QuotaLimits | undefined {
  const { quotaBytes, quotaObjects } = bucket;
  if (quotaBytes === undefined && quotaObjects === undefined) return undefined;
  return { ...(quotaBytes === undefined ? {} : { maxBytes: quotaBytes }), ...(quotaObjects === undefined ? {} : { maxObjects: quotaObjects }) };
}

/** The error every refused write gets: HTTP 403 QuotaExceeded (Ceph RGW's code), in S3's XML. */
export function quotaExceeded(bucket: string, resource: 'bytes' | 'objects', limit: number): Error {
  return s3err('QuotaExceeded', `The bucket quota (${resource === 'bytes' ? `${limit} bytes` : `${limit} objects`}) would be exceeded by this request.`, {
    BucketName: bucket,
  });
}

/** What one write may add. */
export interface QuotaWant {
  bytes: number;
  objects: number;
}

/** Per-bucket bookkeeping of this process (see QuotaGuard). */
interface BucketState {
  reserved: LedgerUsage;
  /** Ledger increments sent and not yet acknowledged. */
  pending: LedgerUsage;
  /** Increments acknowledged after some admission read in flight began, by sequence number. */
  landed: { seq: number; bytes: number; objects: number }[];
  /** Sequence numbers at which the admission reads in flight began. */
  reads: number[];
}

/** One admitted write's reservation: released once its usage is recorded (or it failed). */
export class QuotaTicket {
  private released = false;

  constructor(
    private readonly guard: QuotaGuard,
    readonly bucket: BucketKey,
    readonly limits: QuotaLimits,
    public want: QuotaWant,
  ) {}

  /** Gives the reservation up; idempotent. Call it after recording the write's usage, or on failure. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.guard.unreserve(this.bucket.bucketId, this.want);
  }

  /** True until released. */
  get held(): boolean {
    return !this.released;
  }
}

const add = (a: LedgerUsage, b: LedgerUsage, sign = 1): void => {
  a.bytes += sign * b.bytes;
  a.objects += sign * b.objects;
};

/**
 * Hard, real-time bucket quotas (issue 10): admission against the live ledger
 * (`bucket_quota_ledger`) plus what this process has admitted and not yet seen land in it.
 *
 * Admission of a write to a quota bucket: ledger (read now, at the session's consistency: a
 * QUORUM read sees every acknowledged QUORUM increment) + this process's reservations + its
 * increments still in flight + increments that landed after the read began (the read may or may not
 * include them: counted, never missed) + the write's size <= the limit, for bytes and objects. The
 * check and the reservation happen in one synchronous step after the read, so two requests of this
 * process never both take the last free bytes: through ONE gateway accepted bytes never exceed the
 * quota. Through N gateways a gateway does not see the others' reservations, only their increments
 * once they land: the overshoot is bounded by the other gateways' admitted requests in flight (the
 * sizes they declared), never by minutes of lag.
 *
 * The ledger is written right after each metastore commit (`record`): increments of writes and
 * decrements of deletes and lifecycle expiries, so deleted room is free as soon as the decrement
 * lands (milliseconds). Counter writes are not idempotent and never retried; a failure is logged
 * and counted (`ostore_quota_ledger_write_errors_total`) and the drift is corrected by a re-base to
 * an exact recount (admin `bucket quota set` / `bucket quota recount`).
 */
export class QuotaGuard {
  private readonly states = new Map<string, BucketState>();
  private seq = 0;

  constructor(
    private readonly ledger: Pick<QuotaLedgerRepository, 'get' | 'add'>,
    private readonly log: ContextLogger,
    private readonly metrics: QuotaMetricsSink = new NoopQuotaMetrics(),
  ) {}

  /**
   * Admits `want` into the bucket or throws QuotaExceeded; undefined (and no I/O) for a bucket
   * without a quota. The caller releases the ticket after recording the write's usage or on failure.
   */
  async admit(bucket: BucketKey, want: QuotaWant): Promise<QuotaTicket | undefined> {
    const limits = quotaOf(bucket);
    if (!limits) return undefined;
    return this.withUsage(bucket, limits, (used) => {
      this.check(bucket, limits, want, used);
      this.reserve(bucket.bucketId, want);
      return new QuotaTicket(this, bucket, limits, want);
    });
  }

  /**
   * After a body of unknown declared size was stored: shrinks the reservation to `bytes`, or, when
   * it grew, checks again against a fresh read and throws QuotaExceeded (the caller discards the body).
   */
  async fit(ticket: QuotaTicket, bytes: number): Promise<void> {
    if (!ticket.held || bytes === ticket.want.bytes) return;
    const grown = { bytes: bytes - ticket.want.bytes, objects: 0 };
    const take = () => {
      this.reserve(ticket.bucket.bucketId, grown);
      ticket.want = { ...ticket.want, bytes };
    };
    if (grown.bytes < 0) return take();
    await this.withUsage(ticket.bucket, ticket.limits, (used) => {
      this.check(ticket.bucket, ticket.limits, grown, used);
      take();
    });
  }

  /**
   * Applies a committed change to the ledger of a quota bucket (nothing for other buckets). The
   * increment counts as in flight for admissions until Cassandra acknowledges it. The promise
   * resolves when the write has settled and never rejects (a failure is logged and counted).
   */
  record(bucket: BucketKey, change: QuotaWant): Promise<void> | undefined {
    if (!quotaOf(bucket) || (change.bytes === 0 && change.objects === 0)) return undefined;
    const id = bucket.bucketId;
    const growth = { bytes: Math.max(0, change.bytes), objects: Math.max(0, change.objects) };
    const state = this.stateOf(id);
    add(state.pending, growth);
    return this.ledger
      .add(id, change.bytes, change.objects)
      .catch((err: unknown) => {
        this.metrics.ledgerWriteFailed();
        this.log.warn('quota ledger update failed (not retried: counters are not idempotent); recount the bucket to correct it', {
          bucket: bucket.name,
          bytes: change.bytes,
          objects: change.objects,
          err: (err as Error).message,
        });
      })
      .finally(() => {
        add(state.pending, growth, -1);
        if (state.reads.length > 0) state.landed.push({ seq: ++this.seq, ...growth });
        this.prune(id, state);
      });
  }

  /** Reserved by this process and not yet recorded (for tests and the admin view). */
  reservedIn(bucketId: string): LedgerUsage {
    const s = this.states.get(bucketId);
    return s ? { bytes: s.reserved.bytes + s.pending.bytes, objects: s.reserved.objects + s.pending.objects } : { bytes: 0, objects: 0 };
  }

  /** Called by QuotaTicket.release. */
  unreserve(bucketId: string, want: QuotaWant): void {
    const state = this.states.get(bucketId);
    if (!state) return;
    add(state.reserved, want, -1);
    this.prune(bucketId, state);
  }

  /**
   * Reads the ledger, adds everything of this process the read may not include, and hands the sum
   * to `decide` in the same synchronous step as the read's answer: no other admission of this
   * process can reserve between the sum and the decision.
   */
  private async withUsage<T>(bucket: BucketKey, limits: QuotaLimits, decide: (used: LedgerUsage) => T): Promise<T> {
    const state = this.stateOf(bucket.bucketId);
    const startedAt = this.seq;
    state.reads.push(startedAt);
    const done = () => {
      state.reads.splice(state.reads.indexOf(startedAt), 1);
      this.prune(bucket.bucketId, state);
    };
    return this.ledger.get(bucket.bucketId).then(
      (read) => {
        try {
          this.metrics.observed(bucket.name, limits, read);
          const used = { ...read };
          add(used, state.reserved);
          add(used, state.pending);
          for (const l of state.landed) if (l.seq > startedAt) add(used, l);
          return decide(used);
        } finally {
          done();
        }
      },
      (err: unknown) => {
        done();
        throw err;
      },
    );
  }

  private check(bucket: BucketKey, limits: QuotaLimits, want: QuotaWant, used: LedgerUsage): void {
    if (limits.maxBytes !== undefined && want.bytes > 0 && used.bytes + want.bytes > limits.maxBytes) {
      this.metrics.checked('refused');
      throw quotaExceeded(bucket.name, 'bytes', limits.maxBytes);
    }
    if (limits.maxObjects !== undefined && want.objects > 0 && used.objects + want.objects > limits.maxObjects) {
      this.metrics.checked('refused');
      throw quotaExceeded(bucket.name, 'objects', limits.maxObjects);
    }
    this.metrics.checked('admitted');
  }

  private reserve(bucketId: string, want: QuotaWant): void {
    add(this.stateOf(bucketId).reserved, want);
  }

  private stateOf(bucketId: string): BucketState {
    let s = this.states.get(bucketId);
    if (!s) {
      s = { reserved: { bytes: 0, objects: 0 }, pending: { bytes: 0, objects: 0 }, landed: [], reads: [] };
      this.states.set(bucketId, s);
    }
    return s;
  }

  /** Forgets landed increments no read in flight can miss, and idle buckets. */
  private prune(bucketId: string, s: BucketState): void {
    const oldestRead = s.reads.length > 0 ? Math.min(...s.reads) : Infinity;
    if (s.landed.length > 0) s.landed = oldestRead === Infinity ? [] : s.landed.filter((l) => l.seq > oldestRead);
    const idle = s.reads.length === 0 && s.landed.length === 0;
    if (idle && s.reserved.bytes === 0 && s.reserved.objects === 0 && s.pending.bytes === 0 && s.pending.objects === 0) this.states.delete(bucketId);
  }
}
