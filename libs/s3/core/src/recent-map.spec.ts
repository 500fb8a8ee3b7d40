import { RecentMap } from './recent-map';

describe('RecentMap', () => {
  it('forgets the entry set least recently; reading does not make an entry recent', () => {
    const m = new RecentMap<number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1); // read, not set: a stays the least recent
    m.set('c', 3);
    expect([m.has('a'), m.get('b'), m.get('c'), m.size]).toEqual([false, 2, 3, 2]);
    m.set('b', 20); // b is now the most recent, with its new value
    m.set('d', 4);
    expect([m.has('c'), m.get('b'), m.get('d')]).toEqual([false, 20, 4]);
  });

  it('stays bounded and exact over many sets of a few keys (the queue of sets is compacted)', () => {
    const m = new RecentMap<number>(3);
    for (let i = 0; i < 10_000; i++) m.set(`k${i % 4}`, i);
    expect(m.size).toBe(3);
    expect([m.get('k1'), m.get('k2'), m.get('k3'), m.has('k0')]).toEqual([9_997, 9_998, 9_999, false]);
  });

  it('keeps nothing with no room', () => {
    const m = new RecentMap<number>(0);
    m.set('a', 1);
    expect([m.has('a'), m.size]).toEqual([false, 0]);
  });
});
