import { completedAtOf, filterSkipOf, FilterGeneration, HostFilter, isRecentGeneration } from './generation';

describe(filterSkipOf.name, () => {
  const gen: FilterGeneration = { generation: 3, shape: { bits: 64, hashes: 2 }, capacity: 10, fpr: 0.01, createdAt: new Date(1000) };
  const host = (source: string, complete = true, generation = 3, completedAt?: number): HostFilter => ({
    source,
    generation,
    complete,
    chunks: 1,
    keys: 1,
    completedAt: completedAt === undefined ? undefined : new Date(completedAt),
  });
  const settings = { expectedHosts: 2, maxAgeMs: 500 };

  it('uses a fresh generation every host completed', () => {
    expect(filterSkipOf(gen, [host('a'), host('b')], 1400, settings)).toBeUndefined();
  });

  it.each([
    ['missing', undefined, [host('a'), host('b')], 1400],
    ['incomplete', gen, [host('a'), host('b', false)], 1400],
    ['incomplete', gen, [host('a'), host('b', true, 2)], 1400],
    ['stale', gen, [host('a'), host('b')], 1501],
    ['stale', gen, [host('a', true, 3, 2000), host('b', true, 3, 4000)], 4501],
  ] as const)('skips a %s filter', (reason, g, hosts, now) => {
    expect(filterSkipOf(g, hosts, now, settings)).toBe(reason);
  });

  it('counts staleness from the last build completion, not the opening: a build slower than the max age is still used', () => {
    const slow = [host('a', true, 3, 1200), host('b', true, 3, 9000)];
    expect(completedAtOf(gen, slow)).toBe(9000);
    expect(filterSkipOf(gen, slow, 9400, settings)).toBeUndefined();
    expect(filterSkipOf(gen, slow, 9501, settings)).toBe('stale');
  });

  it('ignores the completions of other generations and of incomplete builds', () => {
    expect(completedAtOf(gen, [host('a', true, 2, 9000), host('b', false, 3, 9000), host('c', true, 3, 1100)])).toBe(1100);
  });
});

describe(isRecentGeneration.name, () => {
  it('accepts the newest `recent` generations and a newer one, refuses older ones and unknown ones', () => {
    expect(isRecentGeneration(9, 9, 2)).toBe(true);
    expect(isRecentGeneration(8, 9, 2)).toBe(true);
    expect(isRecentGeneration(7, 9, 2)).toBe(false);
    expect(isRecentGeneration(8, 9, 1)).toBe(false);
    expect(isRecentGeneration(10, 9, 2)).toBe(true);
    expect(isRecentGeneration(undefined, 9, 2)).toBe(false);
    expect(isRecentGeneration(9, undefined, 2)).toBe(false);
  });
});
