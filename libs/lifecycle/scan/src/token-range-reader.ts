import { isTooManyTombstones, NameRange, readNameRange } from '@ostore/metastore/data-access';
import { KeyedRow, PageSource } from './page-source';
import { ScanPosition } from './scan-position';
import { spansAfter, spansContain, TokenSpan } from './token-ring';

/** What a read that gave up on tombstones made the reader leave out of this pass. */
export type TombstoneSkip =
  | { kind: 'partition-rest'; token: bigint; bucketId: string; parent: string; afterName: string }
  | { kind: 'span'; span: TokenSpan };

export interface TokenRangeReaderOptions {
  /** Whether a read error is Cassandra giving up on tombstones (default: read failure 0x1300). */
  isTombstoneFailure?: (e: unknown) => boolean;
  /** Told about every part of the spans left out because of tombstones (metrics, logs). */
  onTombstoneSkip?: (skip: TombstoneSkip) => void;
}

type Cursor =
  | { kind: 'partition'; token: bigint; bucketId: string; parent: string; afterName: string; pageState?: string }
  | { kind: 'range'; spans: TokenSpan[]; index: number; pageState?: string }
  | { kind: 'sliced'; token: bigint; bucketId: string; parent: string; from: NameRange }
  | { kind: 'done' };

/**
 * Reads a table's rows in the given spans, page by page, in token order, starting at a saved
 * position: first the rest of the partition the position is inside of (`name > afterName`), then
 * the spans after its token. Paging is the driver's (`pageState`), so a page never holds more than
 * `fetchSize` rows and the server never materialises a whole range; one page is one read
 * command on the node, which is also the unit Cassandra counts tombstones in (see LocalScanner).
 *
 * `skipPast(row)` abandons the current query and continues after `row`'s object in its
 * partition: the way to stop reading an object with more versions than the scan keeps without
 * reading them all.
 *
 * Tombstones: a read that meets more than tombstone_failure_threshold tombstones fails however
 * small the page (they lie between two live rows), and retrying it fails again — a directory
 * whose 100,000 adjacent entries were deleted would stall the whole pass until compaction. So
 * such a failure is not thrown: the reader narrows it down and leaves out only what it must —
 *  - in a partition read, nothing if the source can read name slices (the rest of the partition
 *    is then read in slices halved until each stays under the threshold, as listings do), else
 *    the rest of that partition;
 *  - in a range read, first the rest of the partition of the last row it returned (read on its
 *    own), then the remaining span is halved again and again down to a single token, i.e. one
 *    partition: that one is read in name slices if its first row can be read (its key), else left
 *    out (a partition that begins with the tombstones).
 * Each omission is reported (onTombstoneSkip); the live rows left out are scanned by a later pass
 * once compaction has purged the tombstones. A failing read costs one failed request; isolating a
 * partition takes at most 64 of them.
 */
export class TokenRangeReader<T extends KeyedRow> {
  private cursor: Cursor;
  /** Queries issued, for tests and logs. */
  queries = 0;
  /** Reads that failed on tombstones. */
  tombstoneFailures = 0;
  /** The last row returned, and the one a range failure already recovered from. */
  private lastRow?: KeyedRow;
  private recoveredFrom?: KeyedRow;
  private readonly isTombstoneFailure: (e: unknown) => boolean;

  constructor(
    private readonly source: PageSource<T>,
    private readonly spans: readonly TokenSpan[],
    from: ScanPosition,
    private readonly fetchSize: number,
    private readonly options: TokenRangeReaderOptions = {},
  ) {
    this.isTombstoneFailure = options.isTombstoneFailure ?? isTooManyTombstones;
    this.cursor =
      from.partition && spansContain(spans, from.token)
        ? { kind: 'partition', token: from.token, ...from.partition }
        : this.rangeCursorAfter(from.token);
  }

  /** The next page of rows (possibly empty: a page may hold only tombstones), or undefined at the end. */
  async nextPage(): Promise<T[] | undefined> {
    const c = this.cursor;
    try {
      const rows = await this.read(c);
      if (rows && rows.length > 0) this.lastRow = rows[rows.length - 1];
      return rows;
    } catch (e) {
      if (c.kind === 'done' || !this.isTombstoneFailure(e)) throw e;
      this.tombstoneFailures++;
      await this.recover(c);
      return [];
    }
  }

  private async recover(c: Exclude<Cursor, { kind: 'done' }>): Promise<void> {
    if (c.kind === 'partition' && this.source.partitionSlice) {
      this.cursor = { kind: 'sliced', token: c.token, bucketId: c.bucketId, parent: c.parent, from: { gt: c.afterName } };
      return;
    }
    if (c.kind === 'partition' || c.kind === 'sliced') {
      const afterName = c.kind === 'partition' ? c.afterName : (c.from.gt ?? c.from.gte ?? '');
      this.options.onTombstoneSkip?.({ kind: 'partition-rest', token: c.token, bucketId: c.bucketId, parent: c.parent, afterName });
      this.cursor = this.rangeCursorAfter(c.token);
      return;
    }
    const span = c.spans[c.index];
    const last = this.lastRow;
    const inSpan = last !== undefined && last.token > span.start && last.token <= span.end;
    if (inSpan && last !== this.recoveredFrom) {
      // Maybe the tombstones are in the rest of the last row's partition: read it on its own first.
      this.recoveredFrom = last;
      this.cursor = { kind: 'partition', token: last.token, bucketId: last.bucketId, parent: last.parent, afterName: last.name };
      return;
    }
    const start = inSpan ? last.token : span.start;
    const rest = c.spans.slice(c.index + 1);
    if (span.end <= start) {
      // the last row's partition ends the span and has been handled: nothing left in it
      this.cursor = rest.length > 0 ? { kind: 'range', spans: rest, index: 0 } : { kind: 'done' };
      return;
    }
    if (span.end - start <= 1n) {
      // One token, i.e. one partition: if its first row can be read, its key lets us slice it.
      if (this.source.partitionSlice) {
        const first = await this.source.range({ start, end: span.end }, 1).then(
          (page) => page.rows[0],
          (e: unknown) => {
            if (this.isTombstoneFailure(e)) return undefined;
            throw e;
          },
        );
        if (first) {
          this.cursor = { kind: 'sliced', token: first.token, bucketId: first.bucketId, parent: first.parent, from: { gte: '' } };
          return;
        }
      }
      this.options.onTombstoneSkip?.({ kind: 'span', span: { start, end: span.end } });
      this.cursor = rest.length > 0 ? { kind: 'range', spans: rest, index: 0 } : { kind: 'done' };
      return;
    }
    const mid = start + (span.end - start) / 2n;
    this.cursor = { kind: 'range', spans: [{ start, end: mid }, { start: mid, end: span.end }, ...rest], index: 0 };
  }

  private async read(c: Cursor): Promise<T[] | undefined> {
    switch (c.kind) {
      case 'done':
        return undefined;
      case 'partition': {
        this.queries++;
        const page = await this.source.partition(
          { bucketId: c.bucketId, parent: c.parent },
          c.afterName,
          this.fetchSize,
          c.pageState,
        );
        this.cursor = page.pageState ? { ...c, pageState: page.pageState } : this.rangeCursorAfter(c.token);
        return page.rows;
      }
      case 'sliced': {
        const key = { bucketId: c.bucketId, parent: c.parent };
        const rows = await readNameRange(
          c.from,
          this.fetchSize,
          (range, limit) => {
            this.queries++;
            return this.source.partitionSlice!(key, range, limit);
          },
          (row) => row.name,
        );
        if (rows.length < this.fetchSize) {
          this.cursor = this.rangeCursorAfter(c.token);
          return rows;
        }
        // A full answer may end inside an object: hand out whole objects only and read that one
        // again from its first version (unless it alone filled the page: then go on after it).
        const lastName = rows[rows.length - 1].name;
        const whole = rows.filter((r) => r.name !== lastName);
        if (whole.length === 0) {
          this.cursor = { ...c, from: { gt: lastName } };
          return rows;
        }
        this.cursor = { ...c, from: { gte: lastName } };
        return whole;
      }
      case 'range': {
        this.queries++;
        const page = await this.source.range(c.spans[c.index], this.fetchSize, c.pageState);
        if (page.pageState) this.cursor = { ...c, pageState: page.pageState };
        else if (c.index + 1 < c.spans.length) this.cursor = { kind: 'range', spans: c.spans, index: c.index + 1 };
        else this.cursor = { kind: 'done' };
        return page.rows;
      }
    }
  }

  /** Continues after `row`'s object (same partition), dropping what the current query would still return. */
  skipPast(row: KeyedRow): void {
    // At the end every row has been returned already: going back would read later objects twice.
    if (this.cursor.kind === 'done') return;
    this.cursor = {
      kind: 'partition',
      token: row.token,
      bucketId: row.bucketId,
      parent: row.parent,
      afterName: row.name,
    };
  }

  private rangeCursorAfter(token: bigint): Cursor {
    const spans = spansAfter(this.spans, token);
    return spans.length === 0 ? { kind: 'done' } : { kind: 'range', spans, index: 0 };
  }
}
