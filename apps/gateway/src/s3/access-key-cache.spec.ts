import { FakeClock } from '@ostore/shared/clock/testing';
import { AccessKeyCache } from './access-key-cache';

describe(AccessKeyCache.name, () => {
  const known: Record<string, string> = { a: 'A', b: 'B', c: 'C' };
  let clock: FakeClock;
  let reads: string[];
  const load = async (id: string) => {
    reads.push(id);
    return known[id];
  };

  beforeEach(() => {
    clock = new FakeClock();
    reads = [];
  });

  it('reuses a found key for its TTL, then reads it again', async () => {
    const sut = new AccessKeyCache<string>(clock, { ttlMs: 5000, negativeTtlMs: 1000, maxEntries: 10 });
    expect(await sut.get('a', load)).toBe('A');
    clock.advance(4999);
    expect(await sut.get('a', load)).toBe('A');
    clock.advance(1);
    expect(await sut.get('a', load)).toBe('A');
    expect(reads).toEqual(['a', 'a']);
  });

  it('remembers an unknown id for the negative TTL only', async () => {
    const sut = new AccessKeyCache<string>(clock, { ttlMs: 5000, negativeTtlMs: 1000, maxEntries: 10 });
    for (let i = 0; i < 100; i++) expect(await sut.get('nope', load)).toBeUndefined();
    expect(reads).toEqual(['nope']);
    clock.advance(1000);
    await sut.get('nope', load);
    expect(reads).toEqual(['nope', 'nope']);
  });

  it('never caches with a zero TTL', async () => {
    const sut = new AccessKeyCache<string>(clock, { ttlMs: 0, negativeTtlMs: 0, maxEntries: 10 });
    await sut.get('a', load);
    await sut.get('nope', load);
    await sut.get('a', load);
    await sut.get('nope', load);
    expect(reads).toEqual(['a', 'nope', 'a', 'nope']);
    expect(sut.size).toBe(0);
  });

  it('past its bound drops the least recently used entry, not the whole cache', async () => {
    const sut = new AccessKeyCache<string>(clock, { ttlMs: 5000, negativeTtlMs: 1000, maxEntries: 2 });
    await sut.get('a', load);
    await sut.get('b', load);
    await sut.get('a', load); // a is now the most recently used
    await sut.get('c', load); // evicts b
    expect(sut.size).toBe(2);
    reads = [];
    await sut.get('a', load);
    await sut.get('c', load);
    expect(reads).toEqual([]);
    await sut.get('b', load);
    expect(reads).toEqual(['b']);
  });

  it('shares one read between concurrent misses of an id', async () => {
    const sut = new AccessKeyCache<string>(clock, { ttlMs: 5000, negativeTtlMs: 1000, maxEntries: 10 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async (id: string) => {
      reads.push(id);
      await gate;
      return known[id];
    };
    const all = Promise.all([sut.get('a', slow), sut.get('a', slow), sut.get('a', slow)]);
    release();
    expect(await all).toEqual(['A', 'A', 'A']);
    expect(reads).toEqual(['a']);
  });
});
