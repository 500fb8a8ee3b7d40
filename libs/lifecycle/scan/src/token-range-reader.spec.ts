import { byVtsDesc, vrow } from './scan-fixtures.spec-helper';
import { ScannedVersionRow } from './scanned-object';
import { InMemoryPageSource } from './testing';
import type { NameRange } from '@ostore/metastore/data-access';
import { PageSource, RowPage } from './page-source';
import { TombstoneSkip, TokenRangeReader } from './token-range-reader';
import { MIN_TOKEN, TokenSpan } from './token-ring';

const at = (token: bigint, parent: string, name: string, ageDays = 1) => vrow(name, ageDays, { token, parent });

async function readAll<T extends ScannedVersionRow>(sut: TokenRangeReader<T>): Promise<string[]> {
  const out: string[] = [];
  for (let page = await sut.nextPage(); page; page = await sut.nextPage()) out.push(...page.map((r) => `${r.token}:${r.parent}${r.name}`));
  return out;
}

describe(TokenRangeReader.name, () => {
  const rows = [
    at(-50n, 'p/', 'a'),
    at(-50n, 'p/', 'b'),
    at(10n, 'q/', 'a'),
    at(10n, 'q/', 'b'),
    at(10n, 'q/', 'c'),
    at(60n, 'r/', 'a'),
    at(200n, 's/', 'a'),
  ];
  const source = () => new InMemoryPageSource(rows, byVtsDesc);
  const spans: TokenSpan[] = [
    { start: MIN_TOKEN, end: 10n },
    { start: 50n, end: 100n },
  ];

  it('reads only its spans, in token order, page by page', async () => {
    const src = source();
    const sut = new TokenRangeReader(src, spans, { token: MIN_TOKEN }, 2);
    expect(await readAll(sut)).toEqual(['-50:p/a', '-50:p/b', '10:q/a', '10:q/b', '10:q/c', '60:r/a']);
    expect(src.queries).toBe(4); // 2+2+1 rows in span 1 (3 pages), 1 in span 2
  });

  it('resumes after the last whole object inside a partition, then after its token', async () => {
    const sut = new TokenRangeReader(source(), spans, { token: 10n, partition: { bucketId: rows[0].bucketId, parent: 'q/', afterName: 'a' } }, 100);
    expect(await readAll(sut)).toEqual(['10:q/b', '10:q/c', '60:r/a']);
  });

  it('resumes after a token, and ignores a saved partition its node no longer owns', async () => {
    expect(await readAll(new TokenRangeReader(source(), spans, { token: 10n }, 100))).toEqual(['60:r/a']);
    const moved = new TokenRangeReader(
      source(),
      spans,
      { token: 30n, partition: { bucketId: rows[0].bucketId, parent: 'x/', afterName: 'a' } },
      100,
    );
    expect(await readAll(moved)).toEqual(['60:r/a']);
  });

  it('skips the rest of an object with a new query that starts after it', async () => {
    const many = [...Array.from({ length: 50 }, (_, i) => at(10n, 'q/', 'big', i)), at(10n, 'q/', 'c'), at(60n, 'r/', 'a')];
    const src = new InMemoryPageSource(many, byVtsDesc);
    const sut = new TokenRangeReader(src, spans, { token: MIN_TOKEN }, 10);
    const first = await sut.nextPage();
    expect(first!.every((r) => r.name === 'big')).toBe(true);
    sut.skipPast(first![first!.length - 1]);
    expect(await readAll(sut)).toEqual(['10:q/c', '60:r/a']);
    expect(src.rowsReturned).toBe(12);
  });

  it('ignores a skip once everything was read', async () => {
    const sut = new TokenRangeReader(source(), spans, { token: MIN_TOKEN }, 100);
    await readAll(sut);
    sut.skipPast(rows[5]);
    expect(await sut.nextPage()).toBeUndefined();
  });
});

/** Rows plus runs of tombstones: a read that must pass over a run before its page is full fails like Cassandra does. */
class TombstonedSource implements PageSource<ScannedVersionRow> {
  queries = 0;
  /** `threshold`: tombstones one read may pass over (Cassandra: 100,000); one more fails it. */
  constructor(
    protected readonly items: { row: ScannedVersionRow; tomb?: boolean }[],
    protected readonly threshold = 0,
  ) {}

  async range(span: TokenSpan, fetchSize: number, pageState?: string): Promise<RowPage<ScannedVersionRow>> {
    return this.page((r) => r.token > span.start && r.token <= span.end, fetchSize, pageState);
  }

  async partition(key: { bucketId: string; parent: string }, afterName: string, fetchSize: number, pageState?: string) {
    return this.page((r) => r.bucketId === key.bucketId && r.parent === key.parent && r.name > afterName, fetchSize, pageState);
  }

  private page(match: (r: ScannedVersionRow) => boolean, fetchSize: number, pageState?: string): RowPage<ScannedVersionRow> {
    this.queries++;
    const all = this.items.filter((i) => match(i.row));
    const rows: ScannedVersionRow[] = [];
    let i = pageState ? Number(pageState) : 0;
    let tombs = 0;
    for (; i < all.length && rows.length < fetchSize; i++) {
      if (all[i].tomb && ++tombs > this.threshold) throw tooManyTombstones();
      if (!all[i].tomb) rows.push(all[i].row);
    }
    return { rows, pageState: i < all.length ? String(i) : undefined };
  }
}

const tooManyTombstones = () => Object.assign(new Error('Operation failed - received 0 responses and 1 failures'), { code: 0x1300 });

/** The same, able to read bounded name slices of a partition (as CassandraPageSource). */
class SlicingTombstonedSource extends TombstonedSource {
  async partitionSlice(key: { bucketId: string; parent: string }, range: NameRange, limit: number): Promise<ScannedVersionRow[]> {
    this.queries++;
    const inRange = (n: string) =>
      (range.gt === undefined || n > range.gt) && (range.gte === undefined || n >= range.gte) && (range.lt === undefined || n < range.lt);
    const rows: ScannedVersionRow[] = [];
    let tombs = 0;
    for (const i of this.items) {
      if (i.row.bucketId !== key.bucketId || i.row.parent !== key.parent || !inRange(i.row.name)) continue;
      if (rows.length >= limit) break;
      if (i.tomb && ++tombs > this.threshold) throw tooManyTombstones();
      if (!i.tomb) rows.push(i.row);
    }
    return rows;
  }
}

describe(`${TokenRangeReader.name} and tombstones`, () => {
  const live = (token: bigint, parent: string, name: string) => ({ row: at(token, parent, name) });
  const tomb = (token: bigint, parent: string, name: string) => ({ row: at(token, parent, name), tomb: true });
  const everything: TokenSpan[] = [{ start: MIN_TOKEN, end: 1000n }];

  async function readAllSkipping(src: TombstonedSource, fetchSize: number) {
    const skips: TombstoneSkip[] = [];
    const sut = new TokenRangeReader(src, everything, { token: MIN_TOKEN }, fetchSize, { onTombstoneSkip: (s) => skips.push(s) });
    return { rows: await readAll(sut), skips, failures: sut.tombstoneFailures };
  }

  it('leaves out only the single-token span of a partition full of tombstones and reads on', async () => {
    const src = new TombstonedSource([live(-50n, 'p/', 'a'), live(-50n, 'p/', 'b'), tomb(40n, 'wide/', 'exp-0'), live(60n, 'r/', 'a'), live(900n, 's/', 'a')]);
    const { rows, skips, failures } = await readAllSkipping(src, 100);
    expect(rows).toEqual(['-50:p/a', '-50:p/b', '60:r/a', '900:s/a']);
    expect(skips).toEqual([{ kind: 'span', span: { start: 39n, end: 40n } }]);
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThanOrEqual(66);
  });

  it('leaves out the rest of a partition behind its tombstones and reads on after it', async () => {
    // pages of 2: [p/a q/a] then q/b + the tombstones fail; the partition read after q/a fails the same way
    const src = new TombstonedSource([live(-50n, 'p/', 'a'), live(10n, 'q/', 'a'), live(10n, 'q/', 'b'), tomb(10n, 'q/', 'exp'), live(10n, 'q/', 'keep'), live(60n, 'r/', 'a')]);
    const { rows, skips } = await readAllSkipping(src, 2);
    expect(rows).toEqual(['-50:p/a', '10:q/a', '60:r/a']);
    expect(skips).toEqual([{ kind: 'partition-rest', token: 10n, bucketId: src['items'][1].row.bucketId, parent: 'q/', afterName: 'a' }]);
  });

  it('reads every row once, in order, when tombstones sit at the start of a span and in several partitions', async () => {
    const items = [tomb(-900n, 'a/', 'x'), live(-900n, 'a/', 'y'), live(-10n, 'b/', 'a'), tomb(5n, 'c/', 'x'), live(7n, 'd/', 'a'), live(8n, 'd/', 'b'), tomb(500n, 'e/', 'x'), live(999n, 'f/', 'a')];
    const { rows, skips } = await readAllSkipping(new TombstonedSource(items), 100);
    expect(rows).toEqual(['-10:b/a', '7:d/a', '8:d/b', '999:f/a']);
    expect(skips.map((s) => (s.kind === 'span' ? s.span.end : s.token))).toEqual([-900n, 5n, 500n]);
  });

  it('with name slices, reads the rest of a partition behind its tombstones, whole objects in order', async () => {
    // 40 tombstones between q/a..q/b and q/keep-*; one read may pass over 10 of them
    const items = [
      live(-50n, 'p/', 'a'),
      live(10n, 'q/', 'a'),
      live(10n, 'q/', 'b'),
      ...Array.from({ length: 40 }, (_, i) => tomb(10n, 'q/', `exp-${String(i).padStart(2, '0')}`)),
      ...Array.from({ length: 5 }, (_, i) => live(10n, 'q/', `keep-${i}`)),
      live(60n, 'r/', 'a'),
    ];
    for (const fetchSize of [2, 3, 100]) {
      const { rows, skips } = await readAllSkipping(new SlicingTombstonedSource(items, 10), fetchSize);
      expect(rows).toEqual(['-50:p/a', '10:q/a', '10:q/b', ...Array.from({ length: 5 }, (_, i) => `10:q/keep-${i}`), '60:r/a']);
      expect(skips).toEqual([]);
    }
  });

  it('with name slices, finds the key of a partition isolated by token and reads it whole', async () => {
    const items = [
      live(-50n, 'p/', 'a'),
      live(40n, 'wide/', 'a-0'),
      ...Array.from({ length: 30 }, (_, i) => tomb(40n, 'wide/', `exp-${String(i).padStart(2, '0')}`)),
      live(40n, 'wide/', 'keep-0'),
      live(60n, 'r/', 'a'),
    ];
    const { rows, skips } = await readAllSkipping(new SlicingTombstonedSource(items, 10), 100);
    expect(rows).toEqual(['-50:p/a', '40:wide/a-0', '40:wide/keep-0', '60:r/a']);
    expect(skips).toEqual([]);
  });

  it('still throws other read errors (the scanner retries those)', async () => {
    const src = new InMemoryPageSource([at(1n, 'p/', 'a')], byVtsDesc);
    src.failNext = 1;
    await expect(new TokenRangeReader(src, everything, { token: MIN_TOKEN }, 10).nextPage()).rejects.toThrow('injected read failure');
  });
});
