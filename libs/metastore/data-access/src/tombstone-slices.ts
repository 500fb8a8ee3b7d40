import { types } from 'cassandra-driver';
import { NameRange } from './statement';

/** Failure reason code of a replica that gave up a read on tombstone_failure_threshold (native protocol v5). */
const READ_TOO_MANY_TOMBSTONES = 1;

/**
 * Whether a read failed because a replica met more than `tombstone_failure_threshold` tombstones
 * (TombstoneOverwhelmingException on the node). Protocol v5 says so in the failure reasons; an
 * older protocol only says "read failure", which is then taken as possibly that.
 */
export function isTooManyTombstones(e: unknown): boolean {
  const err = e as { code?: number; reasons?: Record<string, number> | Map<string, number> };
  if (err?.code !== types.responseErrorCodes.readFailure) return false;
  if (!err.reasons) return true;
  const reasons = err.reasons instanceof Map ? [...err.reasons.values()] : Object.values(err.reasons);
  return reasons.length === 0 || reasons.includes(READ_TOO_MANY_TOMBSTONES);
}

const MAX_CODE_POINT = 0x10ffff;

/** A code point strictly between `lo` and `hi`, printable ASCII first; never a surrogate. */
function digitBetween(lo: number, hi: number): number | undefined {
  if (hi - lo < 2) return undefined;
  const a = lo + 1;
  const b = Math.min(hi, 0x80);
  let m = a < b ? Math.floor((a + b) / 2) : Math.floor((a + hi) / 2);
  if (m >= 0xd800 && m <= 0xdfff) {
    if (0xe000 < hi) m = 0xe000;
    else if (0xd7ff > lo) m = 0xd7ff;
    else return undefined;
  }
  return m;
}

/**
 * A name strictly between `low` and `high` (undefined: no upper bound) in Cassandra's order of
 * text (UTF-8 bytes, i.e. code points), about halfway between them and preferring ASCII (the
 * usual key alphabet), or undefined when there is none (`high` is `low` + U+0000).
 */
export function nameBetween(low: string, high?: string): string | undefined {
  const l = Array.from(low, (c) => c.codePointAt(0)!);
  let h = high === undefined ? undefined : Array.from(high, (c) => c.codePointAt(0)!);
  const out: number[] = [];
  let i = 0;
  if (h) while (i < l.length && i < h.length && l[i] === h[i]) out.push(l[i++]);
  for (;;) {
    const lo = i < l.length ? l[i] : -1;
    if (h && i >= h.length) return undefined; // `out` is `high` itself
    const hi = h ? h[i] : MAX_CODE_POINT + 1;
    const m = digitBetween(lo, hi);
    if (m !== undefined) return String.fromCodePoint(...out, m);
    out.push(lo < 0 ? 0 : lo);
    i++;
    // lo + 1 === hi: keep low's code point, then anything above the rest of low is below high
    if (lo >= 0) h = undefined;
    // low ended and high goes on with U+0000: that prefix of high is above low and, unless it is
    // all of high, below it
    else if (i < h!.length) return String.fromCodePoint(...out);
  }
}

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/**
 * Where earlier reads of a partition had to be split (the names `readNameRange` split at), per
 * partition, so that later reads of the same directory start from slices that are known to stay
 * under the threshold instead of failing their way down to them again. Stale points cost one
 * extra (cheap) slice; a bounded number of partitions and points per partition is kept.
 */
export class SplitPoints {
  private readonly byPartition = new Map<string, string[]>();

  constructor(
    private readonly maxPartitions = 1024,
    private readonly maxPoints = 256,
  ) {}

  /** The first known split point strictly between `low` and `high` (undefined: no upper bound). */
  first(partition: string, low: string, high?: string): string | undefined {
    return this.byPartition
      .get(partition)
      ?.find((p) => utf8Order(p, low) > 0 && (high === undefined || utf8Order(p, high) < 0));
  }

  add(partition: string, point: string): void {
    let points = this.byPartition.get(partition);
    if (!points) {
      if (this.byPartition.size >= this.maxPartitions)
        this.byPartition.delete(this.byPartition.keys().next().value!);
      this.byPartition.set(partition, (points = []));
    }
    if (points.length >= this.maxPoints || points.includes(point)) return;
    points.push(point);
    points.sort(utf8Order);
  }
}

/**
 * Reads up to `limit` accepted rows of a clustering range of ONE partition, in order, as one or
 * more bounded read commands (a short answer means the range is exhausted).
 *
 * Cassandra counts tombstones per read command and aborts a read that meets more than
 * `tombstone_failure_threshold` (100,000) of them before it has `limit` live rows: in a directory
 * where a run of 100,000+ adjacent keys was deleted (a lifecycle rule over one prefix), every read
 * crossing the run fails until compaction purges the run after gc_grace_seconds. A `LIMIT` or a
 * smaller page does not help (the tombstones lie between two live rows), so such a read is split
 * at a name halfway into its range (`nameBetween`) and the halves are read in order, each again
 * split while it fails: every slice that succeeds holds fewer tombstones than the threshold. The
 * cost is the failed reads (each one scanned ~100,000 tombstones) — about six per character the
 * names of the run share — so `maxSplits` bounds them; past it the failure is rethrown. With
 * `splits` (the partition's SplitPoints), the points found are remembered and later reads of the
 * partition are cut there up front.
 */
export async function readNameRange<R>(
  range: NameRange,
  limit: number,
  query: (range: NameRange, limit: number) => Promise<R[]>,
  nameOf: (row: R) => string,
  accept: (row: R) => boolean = () => true,
  splits?: { points: SplitPoints; partition: string },
  maxSplits = 256,
): Promise<R[]> {
  const out: R[] = [];
  // the slices still to read, the next one last
  const todo: NameRange[] = [range];
  let failures = 0;
  while (todo.length > 0 && out.length < limit) {
    let r = todo.pop()!;
    const known = splits?.points.first(splits.partition, r.gt ?? r.gte ?? '', r.lt);
    if (known !== undefined) {
      todo.push({ gte: known, lt: r.lt });
      r = { gt: r.gt, gte: r.gte, lt: known };
    }
    const want = limit - out.length;
    let rows: R[];
    try {
      rows = await query(r, want);
    } catch (e) {
      if (!isTooManyTombstones(e)) throw e;
      const mid = nameBetween(r.gt ?? r.gte ?? '', r.lt);
      if (mid === undefined || ++failures > maxSplits) throw e;
      splits?.points.add(splits.partition, mid);
      todo.push({ gte: mid, lt: r.lt }, { gt: r.gt, gte: r.gte, lt: mid });
      continue;
    }
    for (const row of rows) if (accept(row)) out.push(row);
    if (rows.length === want) todo.push({ gt: nameOf(rows[rows.length - 1]), lt: r.lt });
  }
  return out;
}
