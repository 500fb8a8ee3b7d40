import { compareUtf8 } from '../keys';

/** A clustering range on names (structurally the NameRange of the data-access repositories). */
export interface NameRange {
  gt?: string;
  gte?: string;
  lt?: string;
}

/** One paged stream of a partition (leaf rows or folder names), re-positionable forward. */
export class PagedStream<T> {
  private buf: T[] = [];
  private pos = 0;
  private exhausted = false;
  private cursor?: T;
  private pending?: Promise<T[]>;

  constructor(
    private range: NameRange,
    private limit: number,
    private readonly maxLimit: number,
    private readonly fetch: (range: NameRange, limit: number, after?: T) => Promise<T[]>,
    private readonly keyOf: (item: T) => string,
    resumeAfter?: T,
  ) {
    this.cursor = resumeAfter;
  }

  /** Starts the next query now (if one is due) so that a later peek() finds it under way. */
  prefetch(): void {
    if (this.pending || this.exhausted || this.pos < this.buf.length) return;
    this.pending = this.fetch(this.range, this.limit, this.cursor);
    this.pending.catch(() => undefined); // a prefetch dropped by seek() must not reject unhandled
  }

  async peek(): Promise<T | undefined> {
    while (this.pos >= this.buf.length) {
      if (this.exhausted) return undefined;
      const query = this.pending ?? this.fetch(this.range, this.limit, this.cursor);
      this.pending = undefined;
      const rows = await query;
      if (rows.length < this.limit) this.exhausted = true;
      this.buf = rows;
      this.pos = 0;
      if (rows.length > 0) this.cursor = rows[rows.length - 1];
      this.limit = Math.min(this.limit * 2, this.maxLimit);
    }
    return this.buf[this.pos];
  }

  advance(): void {
    this.pos++;
  }

  /** Skips forward to the first item whose key is >= `from` (undefined: skip everything). */
  seek(from: string | undefined): void {
    if (from === undefined) {
      this.buf = [];
      this.pos = 0;
      this.exhausted = true;
      this.pending = undefined;
      return;
    }
    while (this.pos < this.buf.length && compareUtf8(this.keyOf(this.buf[this.pos]), from) < 0) this.pos++;
    if (this.pos < this.buf.length || this.exhausted) return;
    // nothing buffered beyond the target: query again from it, keeping the upper bound
    this.range = { gte: from, lt: this.range.lt };
    this.cursor = undefined;
    this.pending = undefined;
  }
}
