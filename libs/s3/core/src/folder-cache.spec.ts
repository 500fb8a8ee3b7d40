import { FakeClock } from '@ostore/shared/clock/testing';
import { FolderCache } from './folder-cache';
import { folderRowsOf } from './keys';

describe(FolderCache.name, () => {
  const rows = folderRowsOf('logs/2026/app.log'); // logs/ and logs/2026/

  it('skips rows this process wrote less than ttl ago, per table and bucket', () => {
    const clock = new FakeClock();
    const cache = new FolderCache(clock, 30_000);
    expect(cache.missing('object_folders', 'b1', rows)).toEqual(rows);
    cache.remember('object_folders', 'b1', rows, clock.nowMs());
    expect(cache.missing('object_folders', 'b1', rows)).toEqual([]);
    expect(cache.missing('version_folders', 'b1', rows)).toEqual(rows);
    expect(cache.missing('object_folders', 'b2', rows)).toEqual(rows);
    // a deeper key shares the cached ancestors and needs only its own new directory
    expect(cache.missing('object_folders', 'b1', folderRowsOf('logs/2026/12/app.log'))).toEqual([{ parent: 'logs/2026/', name: '12/' }]);
  });

  it('writes again once ttl has passed since the remembered write started', () => {
    const clock = new FakeClock();
    const cache = new FolderCache(clock, 30_000);
    const started = clock.nowMs();
    clock.advance(5_000); // the write took 5 s: the entry counts from its start
    cache.remember('object_folders', 'b1', rows, started);
    clock.advance(24_999);
    expect(cache.missing('object_folders', 'b1', rows)).toEqual([]);
    clock.advance(1);
    expect(cache.missing('object_folders', 'b1', rows)).toEqual(rows);
  });

  it('is off with ttl 0 and stays within its size bound', () => {
    const clock = new FakeClock();
    const off = new FolderCache(clock, 0);
    off.remember('object_folders', 'b1', rows, clock.nowMs());
    expect(off.missing('object_folders', 'b1', rows)).toEqual(rows);
    const small = new FolderCache(clock, 30_000, 2);
    small.remember('t', 'b', [{ parent: '', name: 'a/' }], clock.nowMs());
    small.remember('t', 'b', [{ parent: '', name: 'b/' }], clock.nowMs());
    small.remember('t', 'b', [{ parent: '', name: 'c/' }], clock.nowMs());
    expect(small.missing('t', 'b', [{ parent: '', name: 'a/' }])).toHaveLength(1);
    expect(small.missing('t', 'b', [{ parent: '', name: 'c/' }])).toHaveLength(0);
  });
});
