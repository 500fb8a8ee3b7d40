import { splitKey } from '../src';
import { alice, get, harness, Harness, put, refsOf, s3code } from './support';

describe('versioning against a real Cassandra', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('versions');
  });
  afterAll(() => h.close());

  const bucket = async (name: string, versioning?: 'Enabled' | 'Suspended') => {
    await h.core.buckets.create({ name, owner: alice, location: '', acl: 'private' });
    if (versioning) await h.core.buckets.setVersioning(name, versioning);
    return (await h.core.buckets.get(name)).bucketId;
  };
  const indexOf = async (bucketId: string, key: string) => {
    const { parent, name } = splitKey(key);
    return (await h.ms.objects.get(bucketId, parent, name))?.entry;
  };

  it('keeps every version, newest first, with delete markers becoming current', async () => {
    const id = await bucket('ver-enabled', 'Enabled');
    const v1 = await put(h.core, 'ver-enabled', 'doc', 'one');
    const v2 = await put(h.core, 'ver-enabled', 'doc', 'two');
    expect(v1.versionId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(v2.versionId).not.toBe(v1.versionId);
    expect(await get(h.core, 'ver-enabled', 'doc')).toBe('two');
    expect(await get(h.core, 'ver-enabled', 'doc', v1.versionId)).toBe('one');

    const del = await h.core.objects.delete('ver-enabled', 'doc', alice);
    expect(del.deleteMarker).toBe(true);
    const head = await s3code(h.core.objects.head('ver-enabled', 'doc'));
    expect(head).toEqual({ code: 'NoSuchKey', extra: expect.any(Object), deleteMarker: expect.objectContaining({ versionId: del.versionId }) });
    const byId = await s3code(h.core.objects.head('ver-enabled', 'doc', del.versionId));
    expect(byId.code).toBe('MethodNotAllowed');
    expect(byId.deleteMarker).toEqual(expect.objectContaining({ versionId: del.versionId }));
    expect(await indexOf(id, 'doc')).toBeUndefined();
    expect((await h.core.objects.list({ bucket: 'ver-enabled', maxKeys: 10 })).contents).toEqual([]);

    const list = await h.core.objects.listVersions({ bucket: 'ver-enabled', maxKeys: 10 });
    expect(list.versions.map((v) => [v.versionId, v.isDeleteMarker, v.isLatest])).toEqual([
      [del.versionId, true, true],
      [v2.versionId, false, false],
      [v1.versionId, false, false],
    ]);

    // removing the marker makes v2 current again, in the index too
    const undo = await h.core.objects.delete('ver-enabled', 'doc', alice, del.versionId);
    expect(undo).toEqual({ versionId: del.versionId, deleteMarker: true });
    expect(await get(h.core, 'ver-enabled', 'doc')).toBe('two');
    expect((await indexOf(id, 'doc'))?.etag).toBe(v2.etag);
    // removing the current version makes the previous one current
    await h.core.objects.delete('ver-enabled', 'doc', alice, v2.versionId);
    expect(await get(h.core, 'ver-enabled', 'doc')).toBe('one');
    expect((await h.core.objects.list({ bucket: 'ver-enabled', maxKeys: 10 })).contents.map((c) => [c.key, c.versionId])).toEqual([
      ['doc', v1.versionId],
    ]);
    await h.core.objects.delete('ver-enabled', 'doc', alice, v1.versionId);
    expect((await s3code(h.core.objects.head('ver-enabled', 'doc'))).code).toBe('NoSuchKey');
    expect(await indexOf(id, 'doc')).toBeUndefined();
    // deleting a version that is gone succeeds, as in S3
    expect(await h.core.objects.delete('ver-enabled', 'doc', alice, v1.versionId)).toEqual({ versionId: v1.versionId, deleteMarker: false });
  });

  it('removing a version that is not current leaves the index alone and releases its blocks', async () => {
    await bucket('ver-noncurrent', 'Enabled');
    const v1 = await put(h.core, 'ver-noncurrent', 'k', Buffer.alloc(70000, 1));
    const head1 = await h.core.objects.head('ver-noncurrent', 'k', v1.versionId);
    const blocks = await h.ms.versions.readBlocks(head1.manifestId!);
    await put(h.core, 'ver-noncurrent', 'k', 'two');
    await h.core.objects.delete('ver-noncurrent', 'k', alice, v1.versionId);
    expect(await get(h.core, 'ver-noncurrent', 'k')).toBe('two');
    expect(await refsOf(h.client, blocks[0].blockId)).toEqual([]);
    expect((await s3code(h.core.objects.head('ver-noncurrent', 'k', v1.versionId))).code).toBe('NoSuchVersion');
  });

  it('rejects malformed version ids and reports unknown ones', async () => {
    await bucket('ver-ids', 'Enabled');
    await put(h.core, 'ver-ids', 'k', 'x');
    expect((await s3code(h.core.objects.head('ver-ids', 'k', 'not-a-version'))).code).toBe('InvalidArgument');
    expect((await s3code(h.core.objects.delete('ver-ids', 'k', alice, 'zzz'))).code).toBe('InvalidArgument');
    const other = await put(h.core, 'ver-ids', 'other', 'y');
    expect((await s3code(h.core.objects.head('ver-ids', 'k', other.versionId))).code).toBe('NoSuchVersion');
    expect((await s3code(h.core.objects.head('ver-ids', 'k', 'null'))).code).toBe('NoSuchVersion');
  });

  it('suspended: writes replace the null version only; older versions stay', async () => {
    await bucket('ver-suspended', 'Enabled');
    const v1 = await put(h.core, 'ver-suspended', 'k', 'v1');
    await h.core.buckets.setVersioning('ver-suspended', 'Suspended');
    const n1 = await put(h.core, 'ver-suspended', 'k', 'null-1');
    expect(n1.versionId).toBe('null');
    const n2 = await put(h.core, 'ver-suspended', 'k', 'null-2');
    expect(n2.versionId).toBe('null');
    let list = await h.core.objects.listVersions({ bucket: 'ver-suspended', maxKeys: 10 });
    expect(list.versions.map((v) => [v.versionId, v.isLatest])).toEqual([
      ['null', true],
      [v1.versionId, false],
    ]);
    expect(await get(h.core, 'ver-suspended', 'k', 'null')).toBe('null-2');
    // a delete adds a null delete marker, which replaces the null version
    const del = await h.core.objects.delete('ver-suspended', 'k', alice);
    expect(del).toEqual({ versionId: 'null', deleteMarker: true });
    list = await h.core.objects.listVersions({ bucket: 'ver-suspended', maxKeys: 10 });
    expect(list.versions.map((v) => [v.versionId, v.isDeleteMarker, v.isLatest])).toEqual([
      ['null', true, true],
      [v1.versionId, false, false],
    ]);
    // re-enabling: new versions stack on top of the null marker
    await h.core.buckets.setVersioning('ver-suspended', 'Enabled');
    const v3 = await put(h.core, 'ver-suspended', 'k', 'v3');
    list = await h.core.objects.listVersions({ bucket: 'ver-suspended', maxKeys: 10 });
    expect(list.versions.map((v) => v.versionId)).toEqual([v3.versionId, 'null', v1.versionId]);
    // removing the null version by id
    await h.core.objects.delete('ver-suspended', 'k', alice, 'null');
    list = await h.core.objects.listVersions({ bucket: 'ver-suspended', maxKeys: 10 });
    expect(list.versions.map((v) => v.versionId)).toEqual([v3.versionId, v1.versionId]);
  });

  it('pages ListObjectVersions with key and version-id markers, newest first per key', async () => {
    await bucket('ver-pages', 'Enabled');
    const expected: [string, string][] = [];
    for (const key of ['a/x', 'a-b', 'b', 'a/y']) {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await put(h.core, 'ver-pages', key, `${key}${i}`)).versionId);
      for (const id of ids.reverse()) expected.push([key, id]);
    }
    expected.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)); // stable: keeps newest first
    const all = await h.core.objects.listVersions({ bucket: 'ver-pages', maxKeys: 100 });
    expect(all.versions.map((v) => [v.key, v.versionId])).toEqual(expected);
    expect(all.versions.filter((v) => v.isLatest).map((v) => v.key)).toEqual(['a-b', 'a/x', 'a/y', 'b']);

    for (const maxKeys of [1, 2, 4, 5]) {
      const got: [string, string][] = [];
      let keyMarker: string | undefined;
      let versionIdMarker: string | undefined;
      for (let guard = 0; guard < 50; guard++) {
        const page = await h.core.objects.listVersions({ bucket: 'ver-pages', keyMarker, versionIdMarker, maxKeys });
        got.push(...page.versions.map((v) => [v.key, v.versionId] as [string, string]));
        if (!page.isTruncated) break;
        keyMarker = page.nextKeyMarker;
        versionIdMarker = page.nextVersionIdMarker;
      }
      expect(got).toEqual(expected);
    }
    const grouped = await h.core.objects.listVersions({ bucket: 'ver-pages', delimiter: '/', maxKeys: 100 });
    expect(grouped.commonPrefixes).toEqual(['a/']);
    expect(grouped.versions.map((v) => v.key)).toEqual(['a-b', 'a-b', 'a-b', 'b', 'b', 'b']);
    const keyOnly = await h.core.objects.listVersions({ bucket: 'ver-pages', keyMarker: 'a/x', maxKeys: 100 });
    expect(keyOnly.versions[0].key).toBe('a/y');
  });
});
