import type { BlockRef } from './block-store';
import { chunkSpan, pieces, planRange, totalSize } from './range';

const blocks = (...sizes: number[]): BlockRef[] =>
  sizes.map((size, i) => ({ blockId: `b${i}`, size, tier: 't' }));

describe(planRange.name, () => {
  const body = blocks(10, 10, 5);

  it('covers every block whole without a range', () => {
    const sut = planRange(body);
    expect(sut.map((s) => [s.index, s.start, s.endExclusive])).toEqual([
      [0, 0, 10],
      [1, 0, 10],
      [2, 0, 5],
    ]);
  });

  it('maps a range inside one block to that block only', () => {
    expect(
      planRange(body, { start: 12, endInclusive: 15 }).map((s) => [s.index, s.start, s.endExclusive]),
    ).toEqual([[1, 2, 6]]);
  });

  it('splits a range across block boundaries', () => {
    expect(
      planRange(body, { start: 9, endInclusive: 20 }).map((s) => [s.index, s.start, s.endExclusive]),
    ).toEqual([
      [0, 9, 10],
      [1, 0, 10],
      [2, 0, 1],
    ]);
  });

  it('selects exact block boundaries without empty slices', () => {
    expect(
      planRange(body, { start: 10, endInclusive: 19 }).map((s) => [s.index, s.start, s.endExclusive]),
    ).toEqual([[1, 0, 10]]);
    expect(
      planRange(body, { start: 0, endInclusive: 0 }).map((s) => [s.index, s.start, s.endExclusive]),
    ).toEqual([[0, 0, 1]]);
    expect(
      planRange(body, { start: 24, endInclusive: 24 }).map((s) => [s.index, s.start, s.endExclusive]),
    ).toEqual([[2, 4, 5]]);
  });

  it('clamps an end past the body like HTTP does', () => {
    const sut = planRange(body, { start: 20, endInclusive: 1000 });
    expect(sut.map((s) => [s.index, s.start, s.endExclusive])).toEqual([[2, 0, 5]]);
  });

  it('sums to the requested length for every range of a body', () => {
    const total = totalSize(body);
    for (let start = 0; start < total; start++) {
      for (let end = start; end < total + 2; end++) {
        const sut = planRange(body, { start, endInclusive: end });
        expect(sut.reduce((n, s) => n + s.endExclusive - s.start, 0)).toBe(
          Math.min(end, total - 1) - start + 1,
        );
      }
    }
  });

  it.each([
    [{ start: 25, endInclusive: 30 }, /past the end/],
    [{ start: 5, endInclusive: 4 }, /ends before/],
    [{ start: -1, endInclusive: 4 }, /invalid/],
  ])('rejects %j', (range, message) => {
    expect(() => planRange(body, range)).toThrow(message);
  });

  it('reads nothing for an empty body and rejects any range of it', () => {
    expect(planRange([])).toEqual([]);
    expect(() => planRange([], { start: 0, endInclusive: 0 })).toThrow(RangeError);
  });
});

describe(pieces.name, () => {
  it('cuts a span into read units, the last one shorter', () => {
    expect([...pieces(3, 13, 4)]).toEqual([
      [3, 7],
      [7, 11],
      [11, 13],
    ]);
  });

  it('reads a span at once with an infinite unit', () => {
    expect([...pieces(0, 100, Infinity)]).toEqual([[0, 100]]);
  });
});

describe(chunkSpan.name, () => {
  it('finds the chunks holding a byte range', () => {
    expect(chunkSpan(0, 1, 4)).toEqual({ first: 0, last: 0 });
    expect(chunkSpan(3, 5, 4)).toEqual({ first: 0, last: 1 });
    expect(chunkSpan(4, 8, 4)).toEqual({ first: 1, last: 1 });
    expect(chunkSpan(5, 5, 4)).toBeUndefined();
  });
});
