import { splitKey } from '../src';
import { alice, body, get, harness, Harness, put, s3code } from './support';

/**
 * DeleteObjects through ObjectsService.deleteMany (PartitionDeletes): the same outcome per key as
 * DeleteObject — versions, markers, null rows, index, usage events (once, `rm:<vid>`) — with the
 * keys of one directory sharing their reads and mutations.
 */
describe('ObjectsService.deleteMany against a real Cassandra', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('deletemany');
  });
  afterAll(() => h.close());

  async function bucketOf(name: string, versioning: 'Unversioned' | 'Enabled' | 'Suspended') {
    await h.core.buckets.create({ name, owner: alice, location: '', acl: 'private' });
    if (versioning !== 'Unversioned') await h.core.buckets.setVersioning(name, 'Enabled');
    if (versioning === 'Suspended') await h.core.buckets.setVersioning(name, 'Suspended');
    return (await h.core.buckets.get(name)).bucketId;
  }

  const removals = (bucketId: string) => h.usage.filter((u) => u.bucketId === bucketId && u.kind === 'remove');

  it('unversioned: every key of several directories goes, each removal reported once under its row id, missing keys succeed', async () => {
    const B = 'dm-plain';
    const bucketId = await bucketOf(B, 'Unversioned');
    const keys = [...Array.from({ length: 300 }, (_, i) => `a/k${i}`), 'b/c/one', 'top'];
    const vids = new Map<string, string>();
    for (const k of keys) await put(h.core, B, k, `body of ${k}`);
    for (const k of keys) vids.set(k, (await h.core.objects.head(B, k)).manifestId ?? '');
    const items = [...keys, 'a/missing', 'a/k1', 'nothing/here'].map((key) => ({ key }));
    const out = await h.core.objects.deleteMany(B, alice, items);
    expect(out).toEqual(items.map(() => ({ ok: true, result: { deleteMarker: false } })));
    for (const k of keys) {
      expect((await s3code(h.core.objects.head(B, k))).code).toBe('NoSuchKey');
      const { parent, name } = splitKey(k);
      const nulls = await h.ms.versions.nullRows(bucketId, parent, name);
      // only the ghost is left (the old null row converged away)
      expect(nulls.map((n) => n.summary?.isGhost)).toEqual([true]);
    }
    expect((await h.core.objects.list({ bucket: B, maxKeys: 1000 })).contents).toEqual([]);
    expect((await h.core.objects.listVersions({ bucket: B, maxKeys: 1000 })).versions).toEqual([]);
    const events = removals(bucketId);
    expect(events.map((e) => e.eventId).sort()).toEqual(keys.map((k) => `rm:${vids.get(k)}`).sort());
    expect(events.every((e) => e.objects === -1 && e.bytes < 0)).toBe(true);
    // deleting again writes no new ghost and reports nothing
    const again = await h.core.objects.deleteMany(B, alice, keys.slice(0, 5).map((key) => ({ key })));
    expect(again.every((o) => o.ok)).toBe(true);
    const { parent, name } = splitKey(keys[0]);
    expect(await h.ms.versions.nullRows(bucketId, parent, name)).toHaveLength(1);
    expect(removals(bucketId)).toHaveLength(keys.length);
    await put(h.core, B, keys[0], 'back');
    expect(await get(h.core, B, keys[0])).toBe('back');
  });

  it('deletes the version_meta rows there are, found by one read after the removal, instead of one delete per key', async () => {
    const B = 'dm-meta';
    const bucketId = await bucketOf(B, 'Unversioned');
    await put(h.core, B, 'm/plain', 'small'); // its row is all of it (rowOnlyMeta)
    await put(h.core, B, 'm/empty', ''); // so is an empty one's
    await h.core.objects.put({ bucket: B, key: 'm/tagged', owner: alice, body: body(Buffer.from('t')), meta: { userMeta: {}, tags: { a: '1' } } });
    await put(h.core, B, 'm/retagged', 'r');
    await h.core.objects.setTags(B, 'm/retagged', { b: '2' }); // version_meta written from the row
    await put(h.core, B, 'm/raced', 'x');
    const names = ['plain', 'empty', 'tagged', 'retagged', 'raced'];
    const vids = new Map<string, string>();
    for (const n of names) vids.set(n, (await h.core.objects.head(B, `m/${n}`)).manifestId!);
    expect(await h.ms.versions.readMeta(vids.get('plain')!)).toBeUndefined();
    expect(await h.ms.versions.readMeta(vids.get('empty')!)).toBeUndefined();
    expect(await h.ms.versions.readMeta(vids.get('retagged')!)).toBeDefined();
    // a metadata change of `raced` that wrote its version_meta row (from the row's snapshot) just
    // before the removal landed, and looked the row up before that: only the remover can see it
    const [racedRow] = await h.ms.versions.newest(bucketId, 'm/', 'raced', 1, { body: true });
    const versions = h.ms.versions;
    const metaRowsOf = versions.metaRowsOf;
    const order: string[] = [];
    versions.metaRowsOf = async (asked) => {
      order.push(`read after the removal: ${(await versions.nullRows(bucketId, 'm/', 'raced')).every((r) => r.summary?.isGhost)}`);
      await versions.insertMetaIfAbsent(racedRow.snapshot!);
      return metaRowsOf.call(versions, asked);
    };
    const spy = jest.spyOn(h.client, 'execute');
    try {
      const out = await h.core.objects.deleteMany(B, alice, names.map((n) => ({ key: `m/${n}` })));
      expect(out.every((o) => o.ok)).toBe(true);
      const deleted = spy.mock.calls.filter((c) => /^DELETE FROM version_meta/.test(String(c[0]))).map((c) => String((c[1] as unknown[])[0]));
      expect(deleted.sort()).toEqual(['tagged', 'retagged', 'raced'].map((n) => vids.get(n)!).sort());
    } finally {
      spy.mockRestore();
      versions.metaRowsOf = metaRowsOf;
    }
    expect(order).toEqual(['read after the removal: true']);
    for (const n of names) expect(await h.ms.versions.readMeta(vids.get(n)!)).toBeUndefined();
    expect(removals(bucketId)).toHaveLength(names.length);
  });

  it('falls back to a version_meta delete per version when that read fails: nothing is left, every removal reported', async () => {
    const B = 'dm-meta-fail';
    const bucketId = await bucketOf(B, 'Unversioned');
    await put(h.core, B, 'f/plain', 'small');
    await h.core.objects.put({ bucket: B, key: 'f/tagged', owner: alice, body: body(Buffer.from('t')), meta: { userMeta: {}, tags: { a: '1' } } });
    const vids = [(await h.core.objects.head(B, 'f/plain')).manifestId!, (await h.core.objects.head(B, 'f/tagged')).manifestId!];
    const versions = h.ms.versions;
    const metaRowsOf = versions.metaRowsOf;
    versions.metaRowsOf = () => Promise.reject(new Error('read timed out'));
    const spy = jest.spyOn(h.client, 'execute');
    try {
      const out = await h.core.objects.deleteMany(B, alice, [{ key: 'f/plain' }, { key: 'f/tagged' }]);
      expect(out.every((o) => o.ok)).toBe(true);
      const deleted = spy.mock.calls.filter((c) => /^DELETE FROM version_meta/.test(String(c[0]))).map((c) => String((c[1] as unknown[])[0]));
      expect(deleted.sort()).toEqual([...vids].sort());
    } finally {
      spy.mockRestore();
      versions.metaRowsOf = metaRowsOf;
    }
    for (const vid of vids) expect(await h.ms.versions.readMeta(vid)).toBeUndefined();
    expect(removals(bucketId)).toHaveLength(2);
  });

  it('versioned: a marker per key with its own version id, version ids removed for good, per-key errors', async () => {
    const B = 'dm-versioned';
    const bucketId = await bucketOf(B, 'Enabled');
    const v1 = await put(h.core, B, 'd/x', 'x1');
    await put(h.core, B, 'd/x', 'x2');
    await put(h.core, B, 'd/y', 'y1');
    const out = await h.core.objects.deleteMany(B, alice, [
      { key: 'd/x' },
      { key: 'd/y' },
      { key: 'd/never' },
      { key: 'e/z', versionId: v1.versionId },
      { key: 'd/x', versionId: 'not-a-version-id' },
      { key: '' },
    ]);
    const [x, y, never, byVersion, badId, badKey] = out;
    for (const o of [x, y, never]) expect(o).toMatchObject({ ok: true, result: { deleteMarker: true, versionId: expect.any(String) } });
    const markers = [x, y, never].map((o) => (o.ok ? o.result.versionId : ''));
    expect(new Set(markers).size).toBe(3);
    expect(byVersion).toEqual({ ok: true, result: { versionId: v1.versionId, deleteMarker: false } });
    expect(badId.ok).toBe(false);
    expect(badKey.ok).toBe(false);
    const listed = await h.core.objects.listVersions({ bucket: B, maxKeys: 100 });
    const latest = listed.versions.filter((v) => v.isLatest);
    expect(latest.map((v) => [v.key, v.isDeleteMarker, v.versionId]).sort()).toEqual(
      [
        ['d/never', true, markers[2]],
        ['d/x', true, markers[0]],
        ['d/y', true, markers[1]],
      ].sort(),
    );
    // the versions stay (a marker only hides them) and nothing was reported removed
    expect(listed.versions.filter((v) => !v.isDeleteMarker)).toHaveLength(3);
    expect(removals(bucketId)).toEqual([]);
    expect(await get(h.core, B, 'd/x', v1.versionId)).toBe('x1');
    const v1Vid = (await h.core.objects.head(B, 'd/x', v1.versionId)).manifestId ?? '';
    // a version id entry removes that version for good (and reports it)
    const gone = await h.core.objects.deleteMany(B, alice, [{ key: 'd/x', versionId: v1.versionId }]);
    expect(gone).toEqual([{ ok: true, result: { versionId: v1.versionId, deleteMarker: false } }]);
    expect((await s3code(h.core.objects.head(B, 'd/x', v1.versionId))).code).toBe('NoSuchVersion');
    expect(removals(bucketId).map((e) => e.eventId)).toEqual([`rm:${v1Vid}`]);
  });

  it('suspended: a null marker per key replaces the null version (reported once), real versions stay', async () => {
    const B = 'dm-suspended';
    const bucketId = await bucketOf(B, 'Unversioned');
    await put(h.core, B, 's/old', 'null body');
    const nullVid = (await h.core.objects.head(B, 's/old')).manifestId ?? '';
    await h.core.buckets.setVersioning(B, 'Enabled');
    const real = await put(h.core, B, 's/real', 'real');
    await h.core.buckets.setVersioning(B, 'Suspended');
    const out = await h.core.objects.deleteMany(B, alice, [{ key: 's/old' }, { key: 's/real' }]);
    expect(out).toEqual([
      { ok: true, result: { versionId: 'null', deleteMarker: true } },
      { ok: true, result: { versionId: 'null', deleteMarker: true } },
    ]);
    for (const k of ['s/old', 's/real']) {
      expect((await s3code(h.core.objects.head(B, k))).code).toBe('NoSuchKey');
      const { parent, name } = splitKey(k);
      const nulls = await h.ms.versions.nullRows(bucketId, parent, name);
      expect(nulls.map((n) => n.summary && { marker: n.summary.isDeleteMarker, ghost: n.summary.isGhost })).toEqual([{ marker: true, ghost: false }]);
    }
    expect(await get(h.core, B, 's/real', real.versionId)).toBe('real');
    expect(removals(bucketId).map((e) => e.eventId)).toEqual([`rm:${nullVid}`]);
  });
});
