import { types } from 'cassandra-driver';
import { isTooManyTombstones, nameBetween, readNameRange, SplitPoints } from './tombstone-slices';
import { NameRange } from './statement';

const utf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('nameBetween', () => {
  it.each<[string, string | undefined]>([
    ['', undefined],
    ['', 'a'],
    ['exp-000000', undefined],
    ['exp-0', 'exp-1'],
    ['exp-09', 'exp-1'],
    ['a', 'a\u0001'],
    ['a\u007f', undefined],
    ['\ud7ff', '\ue000x'],
    ['z', '\u{10ffff}'],
    ['ключ', 'ключа'],
    ['a😀', 'a😁'],
  ])('%j < mid < %j in UTF-8 order', (low, high) => {
    const mid = nameBetween(low, high)!;
    expect(mid).toBeDefined();
    expect(utf8(low, mid)).toBeLessThan(0);
    if (high !== undefined) expect(utf8(mid, high)).toBeLessThan(0);
    expect(Buffer.from(mid, 'utf8').toString('utf8')).toBe(mid); // valid UTF-8 (no lone surrogate)
  });

  it('is undefined when nothing sorts between the bounds', () => {
    expect(nameBetween('a', 'a\u0000')).toBeUndefined();
    expect(nameBetween('', '\u0000')).toBeUndefined();
  });

  it('holds for random ASCII and non-ASCII bounds', () => {
    const alphabet = ['a', 'b', 'z', '0', '-', '/', '\u0000', '\u007f', 'é', '字', '😀', '\ud7ff', '\ue000'];
    let x = 12345;
    const rnd = (n: number) => (x = (x * 1103515245 + 12345) & 0x7fffffff) % n;
    const word = () => Array.from({ length: rnd(5) }, () => alphabet[rnd(alphabet.length)]).join('');
    for (let i = 0; i < 2000; i++) {
      let [a, b] = [word(), word()];
      if (utf8(a, b) === 0) continue;
      if (utf8(a, b) > 0) [a, b] = [b, a];
      const mid = nameBetween(a, b);
      if (mid === undefined) {
        expect(b).toBe(`${a}\u0000`);
        continue;
      }
      expect(utf8(a, mid)).toBeLessThan(0);
      expect(utf8(mid, b)).toBeLessThan(0);
    }
  });
});

describe('isTooManyTombstones', () => {
  const failure = (reasons?: Record<string, number>) =>
    Object.assign(new Error('read failure'), { code: types.responseErrorCodes.readFailure, reasons });
  it('recognizes a read failure for tombstones, not other errors', () => {
    expect(isTooManyTombstones(failure({ '127.0.0.1': 1 }))).toBe(true);
    expect(isTooManyTombstones(failure())).toBe(true);
    expect(isTooManyTombstones(failure({ '127.0.0.1': 0 }))).toBe(false);
    expect(
      isTooManyTombstones(
        Object.assign(new Error('timeout'), { code: types.responseErrorCodes.readTimeout }),
      ),
    ).toBe(false);
    expect(isTooManyTombstones(new Error('x'))).toBe(false);
  });
});

describe('readNameRange', () => {
  // a "partition": sorted names, some deleted; a read fails when it meets more than `threshold`
  // deleted names before it has `limit` live ones (as Cassandra counts tombstones per read)
  function partition(names: { name: string; live: boolean }[], threshold: number) {
    let reads = 0;
    const query = async (r: NameRange, limit: number) => {
      reads++;
      const out: string[] = [];
      let dead = 0;
      for (const n of names) {
        if (r.gt !== undefined && utf8(n.name, r.gt) <= 0) continue;
        if (r.gt === undefined && r.gte !== undefined && utf8(n.name, r.gte) < 0) continue;
        if (r.lt !== undefined && utf8(n.name, r.lt) >= 0) break;
        if (!n.live) {
          if (++dead > threshold)
            throw Object.assign(new Error('tombstones'), {
              code: types.responseErrorCodes.readFailure,
              reasons: { a: 1 },
            });
          continue;
        }
        out.push(n.name);
        if (out.length === limit) break;
      }
      return out;
    };
    return { query, reads: () => reads };
  }

  const pad = (i: number) => String(i).padStart(6, '0');
  const names = [
    ...Array.from({ length: 5 }, (_, i) => ({ name: `a-${pad(i)}`, live: true })),
    ...Array.from({ length: 3000 }, (_, i) => ({ name: `exp-${pad(i)}`, live: false })),
    ...Array.from({ length: 7 }, (_, i) => ({ name: `keep-${pad(i)}`, live: true })),
  ];

  it('reads across a run of deleted names longer than the threshold, in order', async () => {
    const p = partition(names, 100);
    await expect(p.query({}, 100)).rejects.toThrow('tombstones');
    const rows = await readNameRange({}, 100, p.query, (n) => n);
    expect(rows).toEqual(names.filter((n) => n.live).map((n) => n.name));
  });

  it('keeps the bounds and the limit, and continues after a full slice', async () => {
    const p = partition(names, 100);
    expect(await readNameRange({ gt: 'a-000001', lt: 'keep-000003' }, 4, p.query, (n) => n)).toEqual([
      'a-000002',
      'a-000003',
      'a-000004',
      'keep-000000',
    ]);
    expect(await readNameRange({ gte: 'keep-000002' }, 2, p.query, (n) => n)).toEqual([
      'keep-000002',
      'keep-000003',
    ]);
    expect(await readNameRange({ gte: 'exp-001000' }, 100, p.query, (n) => n)).toHaveLength(7);
  });

  it('rethrows other errors and gives up after maxSplits', async () => {
    const p = partition(names, 100);
    await expect(
      readNameRange(
        {},
        10,
        p.query,
        (n) => n,
        () => true,
        undefined,
        3,
      ),
    ).rejects.toThrow('tombstones');
    await expect(
      readNameRange(
        {},
        10,
        () => Promise.reject(new Error('boom')),
        (n: string) => n,
      ),
    ).rejects.toThrow('boom');
  });

  it('skips rows that are not accepted', async () => {
    const p = partition(names, 100);
    expect(
      await readNameRange(
        {},
        3,
        p.query,
        (n) => n,
        (n) => !n.endsWith('1'),
      ),
    ).toEqual(['a-000000', 'a-000002', 'a-000003']);
  });

  it('remembers where it had to split, so the next read of the partition does not fail again', async () => {
    const p = partition(names, 100);
    const splits = { points: new SplitPoints(), partition: 'b/wide/' };
    const live = names.filter((n) => n.live).map((n) => n.name);
    const failing = async (r: NameRange, limit: number) => {
      try {
        return await p.query(r, limit);
      } catch (e) {
        failed++;
        throw e;
      }
    };
    let failed = 0;
    expect(await readNameRange({}, 100, failing, (n) => n, undefined, splits)).toEqual(live);
    expect(failed).toBeGreaterThan(0);
    failed = 0;
    expect(await readNameRange({}, 100, failing, (n) => n, undefined, splits)).toEqual(live);
    expect(await readNameRange({ gt: 'a-000004' }, 3, failing, (n) => n, undefined, splits)).toEqual(
      live.slice(5, 8),
    );
    expect(failed).toBe(0);
    // another partition learns nothing from it
    expect(
      await readNameRange({}, 100, failing, (n) => n, undefined, { ...splits, partition: 'b/other/' }),
    ).toEqual(live);
    expect(failed).toBeGreaterThan(0);
  });

  it('keeps a bounded number of partitions and points', () => {
    const points = new SplitPoints(2, 3);
    for (const p of ['x', 'y', 'z']) for (const n of ['d', 'b', 'c', 'a']) points.add(p, n);
    expect(points.first('x', '')).toBeUndefined();
    expect(points.first('y', '')).toBe('b');
    expect(points.first('z', 'b', 'd')).toBe('c');
    expect(points.first('z', 'c', 'd')).toBeUndefined();
  });
});
