import { OffsetTracker } from './offset-tracker';

describe(OffsetTracker.name, () => {
  const deliver = (sut: OffsetTracker, ...offsets: number[]) => offsets.forEach((o) => sut.deliver(o));

  it('commits the start position until something is done', () => {
    const sut = new OffsetTracker(10);
    expect(sut.committable()).toBe(10);
    deliver(sut, 10, 11, 12);
    expect(sut.committable()).toBe(10);
    expect(sut.pendingCount()).toBe(3);
  });

  it('moves to last + 1 when everything delivered is done in order', () => {
    const sut = new OffsetTracker(0);
    deliver(sut, 0, 1, 2);
    [0, 1, 2].forEach((o) => sut.complete(o));
    expect(sut.committable()).toBe(3);
    expect(sut.pendingCount()).toBe(0);
  });

  it('commits only the contiguous prefix when messages finish out of order', () => {
    const sut = new OffsetTracker(0);
    deliver(sut, 0, 1, 2, 3, 4, 5);
    sut.complete(1);
    expect(sut.committable()).toBe(0);
    sut.complete(0);
    expect(sut.committable()).toBe(2);
    sut.complete(4);
    sut.complete(3);
    expect(sut.committable()).toBe(2);
    expect(sut.pendingCount()).toBe(2);
    sut.complete(2);
    expect(sut.committable()).toBe(5);
    sut.complete(5);
    expect(sut.committable()).toBe(6);
  });

  it('treats holes in the offsets as contiguous (delivery order, not arithmetic)', () => {
    const sut = new OffsetTracker(100);
    deliver(sut, 103, 107, 110);
    sut.complete(103);
    expect(sut.committable()).toBe(107);
    sut.complete(110);
    expect(sut.committable()).toBe(107);
    sut.complete(107);
    expect(sut.committable()).toBe(111);
  });

  it('forgets everything from a replayed offset up, and keeps what is below', () => {
    const sut = new OffsetTracker(0);
    deliver(sut, 0, 1, 2, 3, 4);
    sut.complete(0);
    sut.complete(1);
    sut.complete(3);
    expect(sut.committable()).toBe(2);

    sut.deliver(2); // redelivery from the first undone one
    expect(sut.committable()).toBe(2);
    expect(sut.pendingCount()).toBe(1);
    deliver(sut, 3, 4);
    sut.complete(2);
    expect(sut.committable()).toBe(3); // 3 was done before the replay: that no longer counts
    sut.complete(3);
    sut.complete(4);
    expect(sut.committable()).toBe(5);
  });

  it('accepts a replay below the start (a rebalance rewound to an older commit)', () => {
    const sut = new OffsetTracker(5);
    deliver(sut, 5, 6);
    sut.complete(5);
    sut.deliver(3);
    expect(sut.committable()).toBe(3);
    sut.complete(3);
    expect(sut.committable()).toBe(4);
  });

  it('ignores a second completion and rejects completing what was never delivered', () => {
    const sut = new OffsetTracker(0);
    deliver(sut, 0, 1);
    expect(sut.complete(0)).toBe(true);
    expect(sut.complete(0)).toBe(false);
    expect(() => sut.complete(7)).toThrow(/offset 7 was never delivered/);
  });

  it('starts over after reset', () => {
    const sut = new OffsetTracker(0);
    deliver(sut, 0, 1, 2);
    sut.complete(0);
    sut.reset(1);
    expect(sut.committable()).toBe(1);
    expect(sut.pendingCount()).toBe(0);
    deliver(sut, 1);
    sut.complete(1);
    expect(sut.committable()).toBe(2);
  });

  it('rejects offsets that are not non-negative safe integers', () => {
    expect(() => new OffsetTracker(-1)).toThrow(/non-negative safe integers/);
    const sut = new OffsetTracker(0);
    expect(() => sut.deliver(1.5)).toThrow(/non-negative safe integers/);
    expect(() => sut.deliver(2 ** 53)).toThrow(/non-negative safe integers/);
  });

  it('stays correct over many out-of-order completions', () => {
    const sut = new OffsetTracker(0);
    const n = 5000;
    for (let i = 0; i < n; i++) sut.deliver(i);
    // complete in a scrambled order, checking the invariant after each step
    const order = Array.from({ length: n }, (_, i) => (i * 7919) % n);
    const done = new Set<number>();
    for (const o of order) {
      sut.complete(o);
      done.add(o);
      let expected = 0;
      while (done.has(expected)) expected++;
      if (o % 97 === 0) expect(sut.committable()).toBe(expected);
    }
    expect(sut.committable()).toBe(n);
    expect(sut.pendingCount()).toBe(0);
  });
});
