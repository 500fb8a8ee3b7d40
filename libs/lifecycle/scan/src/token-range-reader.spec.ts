import { byVtsDesc, vrow } from './scan-fixtures.spec-helper';
import { ScannedVersionRow } from './scanned-object';
import { InMemoryPageSource } from './testing';
import { TokenRangeReader } from './token-range-reader';
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
