/**
 * Progress of one partition when messages may finish out of order (concurrent processing inside
 * a batch): which position may be committed so that a crash never skips an unprocessed message.
 *
 * The rule (the one Scality Backbeat's consumers follow): the committable position is the
 * lowest offset delivered but not done; when everything delivered is done, it is the last
 * delivered offset + 1. Offsets are taken in DELIVERY order, not by arithmetic: Kafka offsets
 * can have holes (compaction, transaction markers) and the Cassandra queue skips nums it gave up
 * waiting for, so "contiguous" means "no undone message delivered before it".
 *
 * A delivery at or below the last delivered offset is a replay (redelivery after a failure or a
 * rebalance): everything tracked from that offset up is forgotten, since it will come again.
 * Pure and synchronous; one instance per partition.
 */
export class OffsetTracker {
  /** Delivered offsets not yet swept, ascending; `head` indexes the first one still pending. */
  private pending: number[] = [];
  private head = 0;
  private readonly finished = new Set<number>();
  private last: number | undefined;

  /** @param start the position reading starts from (the committed offset). */
  constructor(private start: number) {
    assertOffset(start);
  }

  /** Records that `offset` was handed to a handler. */
  deliver(offset: number): void {
    assertOffset(offset);
    if (this.last !== undefined && offset <= this.last) {
      this.forgetFrom(offset);
    } else if (this.last === undefined && offset < this.start) {
      this.start = offset;
    }
    this.pending.push(offset);
    this.last = offset;
  }

  /** Records that `offset` is fully processed; returns false when it already was. */
  complete(offset: number): boolean {
    if (this.finished.has(offset)) return false;
    if (!this.isPending(offset)) {
      if (this.last !== undefined && offset <= this.last && offset >= this.start) return false;
      throw new Error(`offset ${offset} was never delivered (last delivered: ${this.last ?? 'none'})`);
    }
    this.finished.add(offset);
    this.sweep();
    return true;
  }

  /** The position that may be committed now: the first undone delivered offset, or last + 1. */
  committable(): number {
    if (this.head < this.pending.length) return this.pending[this.head];
    return this.last === undefined ? this.start : this.last + 1;
  }

  /** Delivered messages not yet done. */
  pendingCount(): number {
    // `finished` only ever holds offsets still in `pending` after `head` (sweep removes the rest).
    return this.pending.length - this.head - this.finished.size;
  }

  /** Forgets everything; reading restarts at `position`. */
  reset(position: number): void {
    assertOffset(position);
    this.pending = [];
    this.head = 0;
    this.finished.clear();
    this.last = undefined;
    this.start = position;
  }

  private isPending(offset: number): boolean {
    // Binary search: `pending` is ascending.
    let lo = this.head;
    let hi = this.pending.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.pending[mid];
      if (v === offset) return true;
      if (v < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  private sweep(): void {
    while (this.head < this.pending.length && this.finished.has(this.pending[this.head])) {
      this.finished.delete(this.pending[this.head]);
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
  }

  private forgetFrom(offset: number): void {
    const kept = this.pending.slice(this.head).filter((o) => o < offset);
    for (const o of [...this.finished]) if (o >= offset) this.finished.delete(o);
    this.pending = kept;
    this.head = 0;
    this.sweep();
    // Nothing below `offset` is pending any more: the next committable is `offset` itself.
    this.last = offset - 1;
    if (this.last < this.start) {
      this.start = offset;
      this.last = undefined;
    }
  }
}

function assertOffset(offset: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new Error(`offsets are non-negative safe integers (got ${offset})`);
}
