import { KeyedRow, PageSource } from './page-source';
import { ScanPosition } from './scan-position';
import { spansAfter, spansContain, TokenSpan } from './token-ring';

type Cursor =
  | { kind: 'partition'; token: bigint; bucketId: string; parent: string; afterName: string; pageState?: string }
  | { kind: 'range'; spans: TokenSpan[]; index: number; pageState?: string }
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
 */
export class TokenRangeReader<T extends KeyedRow> {
  private cursor: Cursor;
  /** Queries issued, for tests and logs. */
  queries = 0;

  constructor(
    private readonly source: PageSource<T>,
    private readonly spans: readonly TokenSpan[],
    from: ScanPosition,
    private readonly fetchSize: number,
  ) {
    this.cursor =
      from.partition && spansContain(spans, from.token)
        ? { kind: 'partition', token: from.token, ...from.partition }
        : this.rangeCursorAfter(from.token);
  }

  /** The next page of rows (possibly empty: a page may hold only tombstones), or undefined at the end. */
  async nextPage(): Promise<T[] | undefined> {
    const c = this.cursor;
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
