import { MAX_TOKEN, mergeSpans, MIN_TOKEN, primaryRanges, progressAt, RingRange, spansAfter, unwrap } from './token-ring';

/** A ring like the driver's: consecutive (token[i], token[i+1]] ranges, the last one wrapping. */
function ring(tokens: [bigint, string][], rf: number): RingRange[] {
  const sorted = [...tokens].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const nodes = (from: number) => {
    const out: string[] = [];
    for (let j = 0; j < sorted.length && out.length < rf; j++) {
      const n = sorted[(from + j) % sorted.length][1];
      if (!out.includes(n)) out.push(n);
    }
    return out;
  };
  return sorted.map(([start], i) => {
    const endIndex = (i + 1) % sorted.length;
    return { start, end: sorted[endIndex][0], replicas: nodes(endIndex) };
  });
}

describe(primaryRanges.name, () => {
  const sut = primaryRanges;
  const tokens: [bigint, string][] = [
    [-9000n, 'a'],
    [-5000n, 'b'],
    [-1000n, 'c'],
    [0n, 'a'],
    [3000n, 'a'],
    [7000n, 'b'],
    [8000n, 'c'],
  ];

  it('gives each node the ranges whose end it owns (the first replica), none twice, all covered', () => {
    const r = ring(tokens, 3);
    const byNode = Object.fromEntries(['a', 'b', 'c'].map((n) => [n, sut(r, n)]));
    expect(byNode.a).toEqual([
      { start: MIN_TOKEN, end: -9000n },
      { start: -1000n, end: 3000n },
      { start: 8000n, end: MAX_TOKEN },
    ]);
    expect(byNode.b).toEqual([
      { start: -9000n, end: -5000n },
      { start: 3000n, end: 7000n },
    ]);
    expect(byNode.c).toEqual([
      { start: -5000n, end: -1000n },
      { start: 7000n, end: 8000n },
    ]);
    // the union is the whole ring, without overlap
    const all = mergeSpans([...byNode.a, ...byNode.b, ...byNode.c]);
    expect(all).toEqual([{ start: MIN_TOKEN, end: MAX_TOKEN }]);
    const width = (xs: { start: bigint; end: bigint }[]) => xs.reduce((s, x) => s + (x.end - x.start), 0n);
    expect(width(byNode.a) + width(byNode.b) + width(byNode.c)).toBe(MAX_TOKEN - MIN_TOKEN);
  });

  it('does not depend on the replication factor: the primary is the first replica only', () => {
    expect(sut(ring(tokens, 1), 'b')).toEqual(sut(ring(tokens, 3), 'b'));
  });

  it('trusts the replica order it is given (NetworkTopologyStrategy skips nodes of unreplicated DCs)', () => {
    const r: RingRange[] = [
      { start: 0n, end: 10n, replicas: ['dc2-x', 'dc1-y'] },
      { start: 10n, end: 0n, replicas: ['dc1-y', 'dc2-x'] },
    ];
    expect(sut(r, 'dc2-x')).toEqual([{ start: 0n, end: 10n }]);
    expect(sut(r, 'dc1-y')).toEqual([
      { start: MIN_TOKEN, end: 0n },
      { start: 10n, end: MAX_TOKEN },
    ]);
  });

  it('reads a one-token ring, (min, min], as the whole ring', () => {
    expect(sut([{ start: MIN_TOKEN, end: MIN_TOKEN, replicas: ['solo'] }], 'solo')).toEqual([
      { start: MIN_TOKEN, end: MAX_TOKEN },
    ]);
    expect(sut([{ start: MIN_TOKEN, end: MIN_TOKEN, replicas: ['solo'] }], 'other')).toEqual([]);
  });

  it('merges adjacent ranges of one node (vnodes next to each other)', () => {
    const r = ring(
      [
        [-10n, 'a'],
        [0n, 'a'],
        [10n, 'b'],
      ],
      1,
    );
    expect(sut(r, 'a')).toEqual([
      { start: MIN_TOKEN, end: 0n },
      { start: 10n, end: MAX_TOKEN },
    ]);
  });
});

describe(unwrap.name, () => {
  it('splits a wrapping range at the end of the ring and drops empty halves', () => {
    expect(unwrap(5n, -5n)).toEqual([
      { start: 5n, end: MAX_TOKEN },
      { start: MIN_TOKEN, end: -5n },
    ]);
    expect(unwrap(5n, MIN_TOKEN)).toEqual([{ start: 5n, end: MAX_TOKEN }]);
    expect(unwrap(MAX_TOKEN, -5n)).toEqual([{ start: MIN_TOKEN, end: -5n }]);
  });
});

describe(spansAfter.name, () => {
  const spans = [
    { start: -100n, end: -50n },
    { start: 0n, end: 100n },
  ];

  it('keeps what lies after the token, cutting the span it is in', () => {
    expect(spansAfter(spans, MIN_TOKEN)).toEqual(spans);
    expect(spansAfter(spans, -60n)).toEqual([{ start: -60n, end: -50n }, spans[1]]);
    expect(spansAfter(spans, -50n)).toEqual([spans[1]]);
    expect(spansAfter(spans, 50n)).toEqual([{ start: 50n, end: 100n }]);
    expect(spansAfter(spans, 100n)).toEqual([]);
  });
});

describe(progressAt.name, () => {
  it('is the share of the spans at or below the token', () => {
    const spans = [
      { start: 0n, end: 100n },
      { start: 200n, end: 300n },
    ];
    expect(progressAt(spans, MIN_TOKEN)).toBe(0);
    expect(progressAt(spans, 50n)).toBe(0.25);
    expect(progressAt(spans, 150n)).toBe(0.5);
    expect(progressAt(spans, 300n)).toBe(1);
  });
});
