import { filterSkipOf, FilterGeneration, HostFilter } from './generation';

describe(filterSkipOf.name, () => {
  const gen: FilterGeneration = { generation: 3, shape: { bits: 64, hashes: 2 }, capacity: 10, fpr: 0.01, createdAt: new Date(1000) };
  const host = (source: string, complete = true, generation = 3): HostFilter => ({ source, generation, complete, chunks: 1, keys: 1 });
  const settings = { expectedHosts: 2, maxAgeMs: 500 };

  it('uses a fresh generation every host completed', () => {
    expect(filterSkipOf(gen, [host('a'), host('b')], 1400, settings)).toBeUndefined();
  });

  it.each([
    ['missing', undefined, [host('a'), host('b')], 1400],
    ['incomplete', gen, [host('a'), host('b', false)], 1400],
    ['incomplete', gen, [host('a'), host('b', true, 2)], 1400],
    ['stale', gen, [host('a'), host('b')], 1501],
  ] as const)('skips a %s filter', (reason, g, hosts, now) => {
    expect(filterSkipOf(g, hosts, now, settings)).toBe(reason);
  });
});
