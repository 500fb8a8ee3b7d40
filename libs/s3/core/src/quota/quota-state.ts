import type { LedgerUsage } from '@ostore/metastore/data-access';
import type { BucketKey } from '../bucket-key';
import type { QuotaLimits } from './quota-limits';

/** How a process batches its quota ledger traffic (see QuotaGuard). */
export interface QuotaLedgerSettings {
  /**
   * How long one ledger read is reused by admissions far from the limit, and how long committed
   * changes are summed before one counter UPDATE per bucket (ms). 0: every admission reads and
   * every change is written at once (the exact mode everywhere).
   */
  intervalMs: number;
  /**
   * A bucket is near its limit, and its admissions take the exact path (a read of their own,
   * changes written before the response), once used + the request would leave less free than
   * max(ratio × limit, bytes or objects).
   */
  exactHeadroom: { ratio: number; bytes: number; objects: number };
  /** How often the utilisation gauges of the quota buckets this process writes are re-read (ms; 0: only with admissions). */
  gaugeRefreshMs: number;
}

/** The defaults: 250 ms batching; the last 10 % (at least 1 GiB, 10,000 objects) exact; gauges every 15 s. */
export const defaultQuotaLedgerSettings: QuotaLedgerSettings = {
  intervalMs: 250,
  exactHeadroom: { ratio: 0.1, bytes: 2 ** 30, objects: 10_000 },
  gaugeRefreshMs: 15_000,
};

export const zero = (): LedgerUsage => ({ bytes: 0, objects: 0 });
const isZero = (u: LedgerUsage) => u.bytes === 0 && u.objects === 0;

export const add = (a: LedgerUsage, b: LedgerUsage, sign = 1): void => {
  a.bytes += sign * b.bytes;
  a.objects += sign * b.objects;
};

/** max(0, x) per resource: what an unacknowledged or ambiguous counter update may have added. */
export const growthOf = (u: LedgerUsage): LedgerUsage => ({ bytes: Math.max(0, u.bytes), objects: Math.max(0, u.objects) });

/** A completed ledger read: what it said, and the landing sequence number and time at which it began. */
export interface LedgerRead {
  usage: LedgerUsage;
  startSeq: number;
  startedAtMs: number;
}

/**
 * One quota bucket's bookkeeping in this process. What the ledger does not surely hold yet is kept
 * in four parts, so that `usedBy` never counts less than the bucket holds (through this process):
 * - `reserved`: admitted writes not yet committed;
 * - `unflushed`: committed changes not yet sent (net; surely in no read);
 * - `pendingGrowth`: sent, not yet acknowledged (an answer may or may not include them);
 * - `landed`: acknowledged after some read in use began (that read may or may not include them).
 * Ambiguous parts count only their growth: a removal frees room once a read surely includes it.
 */
export class BucketQuotaState {
  readonly reserved = zero();
  unflushed = zero();
  readonly pendingGrowth = zero();
  landed: { seq: number; growth: LedgerUsage }[] = [];
  /** The newest completed read (reused while fresh). */
  base?: LedgerRead;
  /** Admissions waiting for a read (the base is kept while any waits). */
  readers = 0;
  /** The read in flight, shared by every admission that waits for one. */
  reading?: { startSeq: number; done: Promise<LedgerRead> };
  /** Counter updates in flight. */
  readonly sends = new Set<Promise<void>>();
  flushTimer?: ReturnType<typeof setTimeout>;
  /** The newest bucket row seen (name and limits for gauges), and when (ms). */
  lastSeenMs = 0;

  constructor(
    public bucket: BucketKey,
    public limits: QuotaLimits,
  ) {}

  /** What the bucket holds at most, as far as this process can tell, given a read. */
  usedBy(read: LedgerRead): LedgerUsage {
    const used = { bytes: read.usage.bytes, objects: read.usage.objects };
    add(used, this.reserved);
    add(used, this.unflushed);
    add(used, this.pendingGrowth);
    for (const l of this.landed) if (l.seq > read.startSeq) add(used, l.growth);
    return used;
  }

  /** Forgets landed updates that every read in use surely includes; true when nothing is left to keep. */
  prune(): boolean {
    const oldest = Math.min(this.base?.startSeq ?? Infinity, this.reading?.startSeq ?? Infinity);
    if (this.landed.length > 0) this.landed = oldest === Infinity ? [] : this.landed.filter((l) => l.seq > oldest);
    return (
      !this.base &&
      !this.reading &&
      this.landed.length === 0 &&
      this.sends.size === 0 &&
      !this.flushTimer &&
      isZero(this.reserved) &&
      isZero(this.unflushed) &&
      isZero(this.pendingGrowth)
    );
  }
}

/** True when `used + want` leaves less free room than the exact headroom for a limited resource. */
export function nearLimit(limits: QuotaLimits, used: LedgerUsage, want: LedgerUsage, headroom: QuotaLedgerSettings['exactHeadroom']): boolean {
  const near = (max: number | undefined, u: number, w: number, floor: number) => max !== undefined && u + w > max - Math.max(headroom.ratio * max, floor);
  return near(limits.maxBytes, used.bytes, Math.max(0, want.bytes), headroom.bytes) || near(limits.maxObjects, used.objects, Math.max(0, want.objects), headroom.objects);
}
