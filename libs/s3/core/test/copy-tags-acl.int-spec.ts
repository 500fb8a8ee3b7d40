import { alice, bob, body, get, harness, Harness, pattern, put, refsOf, s3code } from './support';

describe('copy, tags and ACLs against a real Cassandra', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('copy');
    await h.core.buckets.create({ name: 'src-bucket', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.create({ name: 'dst-bucket', owner: bob, location: '', acl: 'private' });
    await h.core.buckets.setVersioning('dst-bucket', 'Enabled');
  });
  afterAll(() => h.close());

  it('shares the source blocks by reference across buckets, metadata COPY or REPLACE', async () => {
    const data = pattern(200 * 1024, 3);
    const src = await h.core.objects.put({
      bucket: 'src-bucket',
      key: 'orig',
      owner: alice,
      body: body(data),
      checksumAlgorithms: ['CRC32'],
      meta: { contentType: 'text/plain', userMeta: { m: '1' }, tags: { t: 'a' }, acl: 'public-read' },
    });
    const copied = await h.core.objects.copy({
      source: { bucket: 'src-bucket', key: 'orig' },
      bucket: 'dst-bucket',
      key: 'copy/of/orig',
      owner: bob,
      metadataDirective: 'COPY',
      meta: { userMeta: {} },
    });
    expect(copied).toMatchObject({ etag: src.etag, size: data.length, sourceVersionId: 'null', checksums: { CRC32: src.checksums.CRC32 } });
    const v = await h.core.objects.head('dst-bucket', 'copy/of/orig');
    expect(v).toMatchObject({ versionId: copied.versionId, owner: bob, meta: { contentType: 'text/plain', userMeta: { m: '1' }, tags: { t: 'a' }, acl: 'private' } });
    expect(await get(h.core, 'dst-bucket', 'copy/of/orig')).toBe(data.toString());

    const srcHead = await h.core.objects.head('src-bucket', 'orig');
    const srcBlocks = await h.ms.versions.readBlocks(srcHead.manifestId!);
    const dstBlocks = await h.ms.versions.readBlocks(v.manifestId!);
    expect(dstBlocks.map((b) => b.blockId)).toEqual(srcBlocks.map((b) => b.blockId));
    expect(await refsOf(h.client, srcBlocks[0].blockId)).toEqual([`v:${srcHead.manifestId}`, `v:${v.manifestId}`].sort());

    // deleting the source keeps the copy readable
    await h.core.objects.delete('src-bucket', 'orig', alice);
    expect(await get(h.core, 'dst-bucket', 'copy/of/orig')).toBe(data.toString());
    expect(await refsOf(h.client, srcBlocks[0].blockId)).toEqual([`v:${v.manifestId}`]);

    const replaced = await h.core.objects.copy({
      source: { bucket: 'dst-bucket', key: 'copy/of/orig', versionId: copied.versionId },
      bucket: 'dst-bucket',
      key: 'copy/of/orig',
      owner: bob,
      metadataDirective: 'REPLACE',
      meta: { contentType: 'application/x-new', userMeta: { n: '2' }, tags: { x: 'y' } },
      taggingDirective: 'REPLACE',
    });
    expect(replaced.sourceVersionId).toBe(copied.versionId);
    const rv = await h.core.objects.head('dst-bucket', 'copy/of/orig');
    expect(rv.meta).toMatchObject({ contentType: 'application/x-new', userMeta: { n: '2' }, tags: { x: 'y' } });
    expect(h.usage.filter((u) => u.kind === 'copy').map((u) => u.bytes)).toEqual([data.length, data.length]);
  });

  it('refuses to copy an object onto itself without REPLACE, and from missing sources or markers', async () => {
    await put(h.core, 'src-bucket', 'self', 'x');
    const self = await s3code(
      h.core.objects.copy({ source: { bucket: 'src-bucket', key: 'self' }, bucket: 'src-bucket', key: 'self', owner: alice, metadataDirective: 'COPY', meta: { userMeta: {} } }),
    );
    expect(self.code).toBe('InvalidRequest');
    const missing = await s3code(
      h.core.objects.copy({ source: { bucket: 'src-bucket', key: 'nope' }, bucket: 'src-bucket', key: 'x', owner: alice, metadataDirective: 'COPY', meta: { userMeta: {} } }),
    );
    expect(missing.code).toBe('NoSuchKey');
    const marker = await h.core.objects.delete('dst-bucket', 'marked', bob);
    const byMarker = await s3code(
      h.core.objects.copy({
        source: { bucket: 'dst-bucket', key: 'marked', versionId: marker.versionId },
        bucket: 'dst-bucket',
        key: 'x',
        owner: bob,
        metadataDirective: 'COPY',
        meta: { userMeta: {} },
      }),
    );
    expect(byMarker.code).toBe('InvalidRequest');
  });

  it('tags objects and versions, and sets canned ACLs', async () => {
    const v1 = await put(h.core, 'dst-bucket', 'tagged', 'one', bob);
    const v2 = await put(h.core, 'dst-bucket', 'tagged', 'two', bob);
    expect(await h.core.objects.getTags('dst-bucket', 'tagged')).toEqual({ versionId: v2.versionId, tags: {} });
    expect(await h.core.objects.setTags('dst-bucket', 'tagged', { a: '1', b: '2' })).toEqual({ versionId: v2.versionId });
    await h.core.objects.setTags('dst-bucket', 'tagged', { old: 'yes' }, v1.versionId);
    expect((await h.core.objects.getTags('dst-bucket', 'tagged')).tags).toEqual({ a: '1', b: '2' });
    expect((await h.core.objects.getTags('dst-bucket', 'tagged', v1.versionId)).tags).toEqual({ old: 'yes' });
    await h.core.objects.deleteTags('dst-bucket', 'tagged');
    expect((await h.core.objects.getTags('dst-bucket', 'tagged')).tags).toEqual({});
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v']));
    expect((await s3code(h.core.objects.setTags('dst-bucket', 'tagged', eleven))).code).toBe('BadRequest');
    expect((await s3code(h.core.objects.getTags('dst-bucket', 'untagged-missing'))).code).toBe('NoSuchKey');

    await h.core.objects.setAcl('dst-bucket', 'tagged', 'public-read');
    expect((await h.core.objects.head('dst-bucket', 'tagged')).meta.acl).toBe('public-read');
    expect((await h.core.objects.head('dst-bucket', 'tagged', v1.versionId)).meta.acl).toBe('private');
  });
});
