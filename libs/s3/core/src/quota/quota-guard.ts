import type { LedgerUsage, QuotaLedgerRepository } from '@ostore/metastore/data-access';
import type { Clock } from '@ostore/shared/clock';
import type { ContextLogger } from '@ostore/shared/observability';
import { s3err } from '../errors';
import type { BucketKey } from '../bucket-key';
import { NoopQuotaMetrics, QuotaMetricsSink } from './quota-metrics';
import type { QuotaLimits } from './quota-limits';
import { add, BucketQuotaState, defaultQuotaLedgerSettings, growthOf, LedgerRead, nearLimit, QuotaLedgerSettings, zero } from './quota-state';
export type { QuotaLimits } from './quota-limits';

/**
 * The limits of a bucket row, or undefined for a bucket without a quota (which pays nothing).
 * Built by assignment, not by spreading conditional literals: it runs twice per write into a quota
 * bucket, and V8 spent ~1 µs per spread version of it (tools/bench/quota/QUOTA-COST-RESULTS.md).
 */
export function quotaOf(bucket: Pick<BucketKey, 'quotaBytes' | 'quotaObjects'>): QuotaLimits | undefined {
  const { quotaBytes, quotaObjects } = bucket;
  if (quotaBytes === undefined && quotaObjects === undefined) return undefined;
  const limits: QuotaLimits = {};
  if (quotaBytes !== undefined) limits.maxBytes = quotaBytes;
  if (quotaObjects !== undefined) limits.maxObjects = quotaObjects;
  return limits;
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

/** A quota bucket not written through this process for this long is no longer re-read for its gauges. */
const WATCH_MS = 10 * 60_000;

/**
 * Hard, real-time bucket quotas (issue 10): admission against the live ledger
 * (`bucket_quota_ledger`) plus what this process has admitted or committed and not yet seen land in
 * it (see BucketQuotaState), in one synchronous check-and-reserve step after the read: two requests
 * of this process never both take the last free bytes, so through ONE gateway accepted bytes never
 * exceed the quota, in either of the two modes below.
 *
 * Far from the limit (cheap mode), a PUT pays almost nothing: one ledger read per bucket is shared
 * by every admission for `intervalMs` (a stale one is refreshed once, all waiting admissions share
 * that read), and committed changes are summed per bucket and sent as one counter UPDATE per
 * `intervalMs`; the response does not wait for it. Near the limit (the last `exactHeadroom`), every
 * admission waits for a read of its own (reads in flight are shared) and every change is sent at
 * once and awaited before the response. Through N gateways a gateway sees the others' writes only
 * once they land and it reads again: near the limit the overshoot is bounded by the other gateways'
 * requests in flight; far from it, a gateway is blind to the others for at most 2 × `intervalMs`
 * (their batch, then its read), which can overshoot only when the others commit more than the
 * headroom within that window.
 *
 * Crash: a killed process loses the changes it summed and had not sent — at most `intervalMs` of
 * its commits in cheap mode, none in exact mode — so the ledger undercounts by that much until a
 * re-base (`bucket quota recount`). `close()` sends everything at shutdown. Counter writes are not
 * idempotent and never retried; a failure is logged and counted
 * (`ostore_quota_ledger_write_errors_total`) and corrected by the same re-base.
 */
export class QuotaGuard {
  private readonly states = new Map<string, BucketQuotaState>();
  private seq = 0;
  private closed = false;
  private gaugeTimer?: ReturnType<typeof setInterval>;

  constructor(
    private readonly ledger: Pick<QuotaLedgerRepository, 'get' | 'add'>,
    private readonly clock: Clock,
    private readonly log: ContextLogger,
    private readonly metrics: QuotaMetricsSink = new NoopQuotaMetrics(),
    private readonly settings: QuotaLedgerSettings = defaultQuotaLedgerSettings,
  ) {}

  /**
   * Admits `want` into the bucket or throws QuotaExceeded; undefined (and no I/O) for a bucket
   * without a quota. The caller releases the ticket after recording the write's usage or on failure.
   */
  async admit(bucket: BucketKey, want: QuotaWant): Promise<QuotaTicket | undefined> {
    const limits = quotaOf(bucket);
    if (!limits) return undefined;
    const state = this.stateOf(bucket, limits);
    const read = this.reusable(state, want) ?? (await this.awaitRead(state));
    this.check(bucket, limits, want, state.usedBy(read));
    add(state.reserved, want);
    return new QuotaTicket(this, bucket, limits, want);
  }

  /**
   * After a body of unknown declared size was stored: shrinks the reservation to `bytes`, or, when
   * it grew, checks the growth again and throws QuotaExceeded (the caller discards the body).
   */
  async fit(ticket: QuotaTicket, bytes: number): Promise<void> {
    if (!ticket.held || bytes === ticket.want.bytes) return;
    const grown = { bytes: bytes - ticket.want.bytes, objects: 0 };
    const state = this.stateOf(ticket.bucket, ticket.limits);
    if (grown.bytes > 0) this.check(ticket.bucket, ticket.limits, grown, state.usedBy(this.reusable(state, grown) ?? (await this.awaitRead(state))));
    add(state.reserved, grown);
    ticket.want = { ...ticket.want, bytes };
  }

  /**
   * Applies a committed change to the ledger of a quota bucket (nothing for other buckets). In
   * cheap mode it is summed and sent with the bucket's next batch (undefined returned: nothing to
   * wait for); near the limit, or without a recent read (e.g. a lifecycle delete), it is sent now
   * and the promise resolves once the write has settled. Never rejects. `ticket`, the write's
   * reservation, is released in the same step (the summed change now stands for it).
   */
  record(bucket: BucketKey, change: QuotaWant, ticket?: QuotaTicket): Promise<void> | undefined {
    const limits = quotaOf(bucket);
    if (!limits || (change.bytes === 0 && change.objects === 0)) {
      ticket?.release();
      return undefined;
    }
    const state = this.stateOf(bucket, limits);
    add(state.unflushed, change);
    ticket?.release();
    const base = state.base;
    if (this.closed || this.settings.intervalMs === 0 || !base || nearLimit(limits, state.usedBy(base), zero(), this.settings.exactHeadroom)) return this.send(state);
    state.flushTimer ??= unrefTimer(setTimeout(() => void this.send(state), this.settings.intervalMs));
    return undefined;
  }

  /** Sends the bucket's summed changes now and waits for every update of it in flight (admin reads first flush). */
  async flush(bucketId: string): Promise<void> {
    const state = this.states.get(bucketId);
    if (!state) return;
    await this.send(state);
    await Promise.all([...state.sends]);
  }

  /** Sends every summed change and waits for all updates in flight; later changes are sent at once. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.gaugeTimer) clearInterval(this.gaugeTimer);
    await Promise.all([...this.states.keys()].map((id) => this.flush(id)));
  }

  /** Reserved or committed by this process and not yet sent or acknowledged (for tests and the admin view). */
  reservedIn(bucketId: string): LedgerUsage {
    const s = this.states.get(bucketId);
    if (!s) return zero();
    const sum = { ...s.reserved };
    add(sum, s.unflushed);
    add(sum, s.pendingGrowth);
    return sum;
  }

  /** Called by QuotaTicket.release. */
  unreserve(bucketId: string, want: QuotaWant): void {
    const state = this.states.get(bucketId);
    if (!state) return;
    add(state.reserved, want, -1);
    this.forgetIfIdle(state);
  }

  /** The newest read when it is fresh and the request stays clear of the exact headroom; else undefined (read again). */
  private reusable(state: BucketQuotaState, want: QuotaWant): LedgerRead | undefined {
    const base = state.base;
    if (!base || this.closed || this.clock.nowMs() - base.startedAtMs >= this.settings.intervalMs) return undefined;
    return nearLimit(state.limits, state.usedBy(base), want, this.settings.exactHeadroom) ? undefined : base;
  }

  /**
   * Waits for a read (see `read`) as one of the bucket's readers: while any reader waits, the landed
   * updates its read may miss are kept. The caller decides in the same synchronous step as the return.
   */
  private async awaitRead(state: BucketQuotaState): Promise<LedgerRead> {
    state.readers++;
    try {
      return await this.read(state);
    } finally {
      state.readers--;
    }
  }

  /** The read in flight, or a new one: every waiting admission shares it. Its answer becomes the bucket's base. */
  private read(state: BucketQuotaState): Promise<LedgerRead> {
    if (state.reading) return state.reading.done;
    const startSeq = this.seq;
    const startedAtMs = this.clock.nowMs();
    const done = this.ledger.get(state.bucket.bucketId).then(
      (usage) => {
        // one read in flight per bucket: this answer is the newest, and the landed updates it may miss stay kept
        const read = { usage, startSeq, startedAtMs };
        state.reading = undefined;
        state.base = read;
        this.metrics.observed(state.bucket.name, state.limits, usage);
        return read;
      },
      (err: unknown) => {
        state.reading = undefined;
        this.forgetIfIdle(state);
        throw err;
      },
    );
    state.reading = { startSeq, done };
    return done;
  }

  /** One counter UPDATE with everything summed so far; pending until acknowledged, then landed. */
  private send(state: BucketQuotaState): Promise<void> {
    if (state.flushTimer) clearTimeout(state.flushTimer);
    state.flushTimer = undefined;
    const batch = state.unflushed;
    if (batch.bytes === 0 && batch.objects === 0) return Promise.resolve();
    state.unflushed = zero();
    const growth = growthOf(batch);
    add(state.pendingGrowth, growth);
    const sent: Promise<void> = this.ledger
      .add(state.bucket.bucketId, batch.bytes, batch.objects)
      .catch((err: unknown) => {
        this.metrics.ledgerWriteFailed();
        this.log.warn('quota ledger update failed (not retried: counters are not idempotent); recount the bucket to correct it', {
          bucket: state.bucket.name,
          bytes: batch.bytes,
          objects: batch.objects,
          err: (err as Error).message,
        });
      })
      .finally(() => {
        add(state.pendingGrowth, growth, -1);
        state.landed.push({ seq: ++this.seq, growth });
        state.sends.delete(sent);
        this.forgetIfIdle(state);
      });
    state.sends.add(sent);
    return sent;
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

  private stateOf(bucket: BucketKey, limits: QuotaLimits): BucketQuotaState {
    let s = this.states.get(bucket.bucketId);
    if (!s) {
      s = new BucketQuotaState(bucket, limits);
      this.states.set(bucket.bucketId, s);
    }
    s.bucket = bucket;
    s.limits = limits;
    s.lastSeenMs = this.clock.nowMs();
    this.startGaugeRefresh();
    return s;
  }

  /**
   * Drops a base no admission can use any more (older than 4 intervals, no reader waiting), so that
   * its landed updates can go, and the whole state of a bucket with nothing left to track.
   */
  private forgetIfIdle(state: BucketQuotaState): void {
    const base = state.base;
    if (base && state.readers === 0 && !state.reading && this.clock.nowMs() - base.startedAtMs >= 4 * this.settings.intervalMs) state.base = undefined;
    if (state.prune() && this.clock.nowMs() - state.lastSeenMs >= WATCH_MS) this.states.delete(state.bucket.bucketId);
  }

  /**
   * Re-reads, every `gaugeRefreshMs`, the ledger of each quota bucket written through this process
   * in the last 10 minutes, so that its utilisation gauges follow other gateways, deletes and
   * lifecycle, not only this process's admissions.
   */
  private startGaugeRefresh(): void {
    if (this.gaugeTimer || this.closed || this.settings.gaugeRefreshMs === 0) return;
    this.gaugeTimer = unrefTimer(
      setInterval(() => {
        for (const state of [...this.states.values()]) {
          if (this.clock.nowMs() - state.lastSeenMs >= WATCH_MS) {
            this.forgetIfIdle(state);
            continue;
          }
          this.read(state).catch((err: unknown) => this.log.debug('quota gauge refresh failed', { bucket: state.bucket.name, err: (err as Error).message }));
        }
      }, this.settings.gaugeRefreshMs),
    );
  }
}

/** Timers of the guard never keep a process alive (close() sends what is left). */
function unrefTimer<T extends { unref(): unknown }>(t: T): T {
  t.unref();
  return t;
}
