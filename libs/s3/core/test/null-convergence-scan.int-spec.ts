import { splitKey } from '../src';
import { alice, get, harness, Harness, put } from './support';

/**
 * S3_NULL_CONVERGENCE=scan (S3CoreSettings.nullConvergence): an unversioned PUT of a key this
 * process did not write lately reads nothing after its mutation; the null version it replaces
 * stays beneath it, never shown, its data and usage kept, until the lifecycle scan finds it
 * (ScannedObject.staleNulls) and the scheduler converges it (scheduler-pipeline.int-spec.ts:
 * "converges the stale null rows a candidate names"). A key rewritten through the same process,
 * a quota bucket, and DELETE still converge at once.
 */
describe('null versions left to the scan (nullConvergence scan, real Cassandra)', () => {
  let h: Harness;
  let deferred: () => number;
  beforeAll(async () => {
    h = await harness('nullscan', { nullConvergence: 'scan', recentNullKeys: 2 });
    deferred = () => h.convergenceDeferred.count;
    await h.core.buckets.create({ name: 'scan-converge', owner: alice, location: '', acl: 'private' });
  });
  afterAll(() => h.close());

  const nullRowsOf = async (bucket: string, key: string) => {
    const { bucketId } = await h.core.buckets.get(bucket);
    const { parent, name } = splitKey(key);
    return h.ms.versions.nullRows(bucketId, parent, name);
  };
  const removals = (bucket: string) => h.usage.filter((e) => e.bucket === bucket && e.kind === 'remove');

  it('an overwrite from another gateway leaves the replaced row to the scan, hidden from every reader', async () => {
    const before = deferred();
    await put(h.core, 'scan-converge', 'dir/k', 'one');
    const other = await h.another();
    await put(other, 'scan-converge', 'dir/k', 'second');
    expect(deferred() - before).toBe(2);
    expect(await nullRowsOf('scan-converge', 'dir/k')).toHaveLength(2);
    // nothing removed yet: the replaced version's usage is still counted
    expect(removals('scan-converge')).toEqual([]);

    expect(await get(h.core, 'scan-converge', 'dir/k')).toBe('second');
    expect(await get(h.core, 'scan-converge', 'dir/k', 'null')).toBe('second');
    expect((await h.core.objects.head('scan-converge', 'dir/k')).size).toBe(6);
    const versions = await h.core.objects.listVersions({ bucket: 'scan-converge', maxKeys: 10 });
    expect(versions.versions.map((v) => [v.key, v.versionId, v.isLatest, v.size])).toEqual([['dir/k', 'null', true, 6]]);
    const list = await h.core.objects.list({ bucket: 'scan-converge', maxKeys: 10 });
    expect(list.contents.map((o) => [o.key, o.size])).toEqual([['dir/k', 6]]);

    // the same gateway writes the key again: it knows the key has a row to replace, and removes both
    await put(other, 'scan-converge', 'dir/k', 'third!!');
    expect(deferred() - before).toBe(2);
    expect(await nullRowsOf('scan-converge', 'dir/k')).toHaveLength(1);
    expect(removals('scan-converge').map((e) => [e.bytes, e.objects]).sort()).toEqual([[-3, -1], [-6, -1]]);
    expect(await get(h.core, 'scan-converge', 'dir/k')).toBe('third!!');
  });

  it('a key forgotten by the process (recentNullKeys) is left to the scan again', async () => {
    await put(h.core, 'scan-converge', 'lru/a', 'a1');
    await put(h.core, 'scan-converge', 'lru/b', 'b1');
    await put(h.core, 'scan-converge', 'lru/c', 'c1'); // the process remembers 2 keys: lru/a is forgotten
    const before = deferred();
    await put(h.core, 'scan-converge', 'lru/a', 'a2');
    await put(h.core, 'scan-converge', 'lru/c', 'c2');
    expect(deferred() - before).toBe(1);
    expect(await nullRowsOf('scan-converge', 'lru/a')).toHaveLength(2);
    expect(await nullRowsOf('scan-converge', 'lru/c')).toHaveLength(1);
  });

  it('DELETE converges at once: the deleted object and the row beneath it go', async () => {
    await put(h.core, 'scan-converge', 'del/k', 'one');
    await put(await h.another(), 'scan-converge', 'del/k', 'two');
    expect(await nullRowsOf('scan-converge', 'del/k')).toHaveLength(2);
    await h.core.objects.delete('scan-converge', 'del/k', alice);
    const rows = await nullRowsOf('scan-converge', 'del/k');
    expect(rows).toHaveLength(1); // the ghost
    await expect(get(h.core, 'scan-converge', 'del/k')).rejects.toThrow();
  });

  it('a quota bucket converges at write: its usage stays exact', async () => {
    await h.core.buckets.create({ name: 'scan-quota', owner: alice, location: '', acl: 'private' });
    await h.core.quotas.setQuota('scan-quota', { maxBytes: 1_000_000 });
    const before = deferred();
    await put(h.core, 'scan-quota', 'q/k', 'one');
    await put(await h.another(), 'scan-quota', 'q/k', 'two');
    expect(deferred() - before).toBe(0);
    expect(await nullRowsOf('scan-quota', 'q/k')).toHaveLength(1);
    expect(removals('scan-quota').map((e) => e.bytes)).toEqual([-3]);
  });
});
