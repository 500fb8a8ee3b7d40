import { alice, body, drain, harness, Harness, pattern, put, queriesOf, s3code } from './support';

/**
 * Version rows carry a snapshot of their metadata and a small inline body: GET/HEAD make one
 * Cassandra read. The snapshot must never show metadata that was changed since, nor come back for
 * a deleted version; the body must stay readable whatever happens to the snapshot.
 */
describe('metadata snapshots in version rows, against a real Cassandra', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('snapshots', { rowBodyMaxBytes: 8 * 1024 });
    await h.core.buckets.create({ name: 'snaps', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.setVersioning('snaps', 'Enabled');
  });
  afterAll(() => h.close());

  const putWith = (key: string, data: Buffer, meta: Parameters<typeof h.core.objects.put>[0]['meta']) =>
    h.core.objects.put({ bucket: 'snaps', key, owner: alice, body: body(data), checksumAlgorithms: ['CRC32'], meta });
  const putWithMeta = (key: string, data: Buffer) =>
    putWith(key, data, { contentType: 'text/x-snap', userMeta: { colour: 'blue' }, tags: { t: '1' }, acl: 'public-read' });

  it('serves HEAD and GET of a small object from one read of its version row', async () => {
    const data = pattern(4096, 7);
    const put1 = await putWithMeta('dir/small', data);
    await h.core.buckets.resolve('snaps'); // the bucket row is cached from here on
    const { result: v, cql } = await queriesOf(h.client, () => h.core.objects.head('snaps', 'dir/small'));
    expect(cql).toHaveLength(1);
    expect(cql[0]).toMatch(/FROM versions WHERE/);
    expect(v).toMatchObject({
      versionId: put1.versionId,
      size: 4096,
      checksums: { CRC32: put1.checksums.CRC32 },
      meta: { contentType: 'text/x-snap', userMeta: { colour: 'blue' }, tags: { t: '1' }, acl: 'public-read' },
    });
    const read = await queriesOf(h.client, async () => drain(await h.core.objects.openBody(v)));
    expect(read.cql).toEqual([]);
    expect(read.result.equals(data)).toBe(true);
    // the body is stored once: in the row, not also in version_meta
    expect((await h.ms.versions.readMeta(v.manifestId!, { inlineBody: true }))?.inlineBody).toBeUndefined();

    // by version id too
    const byId = await queriesOf(h.client, () => h.core.objects.head('snaps', 'dir/small', put1.versionId));
    expect(byId.cql.filter((q) => /version_meta/.test(q))).toEqual([]);
    expect(byId.result.meta.tags).toEqual({ t: '1' });
  });

  it('reads version_meta for bodies over the snapshot limit, and for block-stored bodies only the metadata', async () => {
    const inline = pattern(9000, 3); // inline (<= 64 KiB) but over the 8 KiB snapshot limit
    await putWithMeta('big-inline', inline);
    const a = await queriesOf(h.client, () => h.core.objects.head('snaps', 'big-inline'));
    expect(a.cql.some((q) => /FROM version_meta/.test(q))).toBe(true);
    expect((await drain(await h.core.objects.openBody(a.result))).equals(inline)).toBe(true);

    const big = pattern(100 * 1024, 5); // blocks
    await putWithMeta('blocks', big);
    const b = await queriesOf(h.client, () => h.core.objects.head('snaps', 'blocks'));
    expect(b.cql).toHaveLength(1);
    expect(b.result.meta).toMatchObject({ contentType: 'text/x-snap', tags: { t: '1' } });
    expect((await drain(await h.core.objects.openBody(b.result))).equals(big)).toBe(true);
  });

  it('shows changed tags and ACLs at once, on the current version and by version id', async () => {
    const v1 = await putWithMeta('changing', Buffer.from('one'));
    const v2 = await putWithMeta('changing', Buffer.from('two'));
    await h.core.objects.setTags('snaps', 'changing', { t: '2', more: 'yes' });
    await h.core.objects.setAcl('snaps', 'changing', 'private', v1.versionId);
    const cur = await h.core.objects.head('snaps', 'changing');
    expect(cur).toMatchObject({ versionId: v2.versionId, meta: { tags: { t: '2', more: 'yes' }, acl: 'public-read' } });
    const old = await h.core.objects.head('snaps', 'changing', v1.versionId);
    expect(old.meta).toMatchObject({ tags: { t: '1' }, acl: 'private' });
    expect((await drain(await h.core.objects.openBody(old))).toString()).toBe('one');
    // the changed rows lost their snapshots; the metadata comes from version_meta from now on
    const bucketId = (await h.core.buckets.resolve('snaps')).bucketId;
    const [row] = await h.ms.versions.newest(bucketId, '', 'changing', 1, { body: true });
    expect(row.vid).toBe(cur.manifestId);
    expect(row.snapshot).toBeUndefined();
    // while the body stays in the row, and GET serves it
    expect(row.inlineBody?.toString()).toBe('two');
    expect((await drain(await h.core.objects.openBody(cur))).toString()).toBe('two');
    await h.core.objects.deleteTags('snaps', 'changing');
    expect((await h.core.objects.head('snaps', 'changing')).meta.tags).toEqual({});
  });

  it('never leaves a stale snapshot when a change fails half way', async () => {
    await putWithMeta('half', Buffer.from('half'));
    // the metadata write fails after the snapshot was dropped: readers see the old metadata
    const update = jest.spyOn(h.ms.versions, 'updateMeta').mockRejectedValueOnce(new Error('write timeout'));
    await expect(h.core.objects.setTags('snaps', 'half', { t: 'new' })).rejects.toThrow('write timeout');
    update.mockRestore();
    expect((await h.core.objects.head('snaps', 'half')).meta.tags).toEqual({ t: '1' });
    // the snapshot drop fails: nothing was changed, so the snapshot is still right
    const drop = jest.spyOn(h.ms.versions, 'dropSnapshot').mockRejectedValueOnce(new Error('unavailable'));
    await expect(h.core.objects.setAcl('snaps', 'half', 'private')).rejects.toThrow('unavailable');
    drop.mockRestore();
    const afterDrop = await h.core.objects.head('snaps', 'half');
    expect(afterDrop.meta.acl).toBe('public-read');
    expect((await h.ms.versions.readMeta(afterDrop.manifestId!))?.acl).toBe('public-read');
    // and a retry goes through
    await h.core.objects.setTags('snaps', 'half', { t: 'new' });
    expect((await h.core.objects.head('snaps', 'half')).meta.tags).toEqual({ t: 'new' });
  });

  it('does not bring back a version deleted before its snapshot is dropped', async () => {
    const v = await putWithMeta('gone', Buffer.from('gone'));
    const bucketId = (await h.core.buckets.resolve('snaps')).bucketId;
    const [row] = await h.ms.versions.newest(bucketId, '', 'gone', 1);
    await h.core.objects.delete('snaps', 'gone', alice, v.versionId);
    await h.ms.versions.dropSnapshot(row, Date.now() * 1000);
    expect(await h.ms.versions.get(row, { body: true })).toBeUndefined();
    expect((await s3code(h.core.objects.head('snaps', 'gone'))).code).toBe('NoSuchKey');
  });

  describe('a small object without tags or encryption: its row is its only metadata (rowOnlyMeta)', () => {
    const plain = (key: string, data: Buffer) => putWith(key, data, { contentType: 'text/x-plain', userMeta: { colour: 'red' }, acl: 'public-read' });

    it('PUT writes no version_meta row; HEAD, GET and GetObjectTagging answer from the row', async () => {
      const data = pattern(3000, 3);
      const { result: put1, cql } = await queriesOf(h.client, () => plain('row-only/a', data));
      expect(cql.filter((q) => /version_meta/.test(q))).toEqual([]);
      const v = await h.core.objects.head('snaps', 'row-only/a');
      expect(await h.ms.versions.readMeta(v.manifestId!)).toBeUndefined();
      expect(v).toMatchObject({
        versionId: put1.versionId,
        size: 3000,
        checksums: { CRC32: put1.checksums.CRC32 },
        meta: { contentType: 'text/x-plain', userMeta: { colour: 'red' }, tags: {}, acl: 'public-read' },
      });
      expect((await drain(await h.core.objects.openBody(v))).equals(data)).toBe(true);
      expect(await h.core.objects.getTags('snaps', 'row-only/a')).toEqual({ versionId: put1.versionId, tags: {} });
      // one with tags keeps its version_meta row (the lifecycle scan reads tags from there)
      await putWithMeta('row-only/tagged', pattern(100, 1));
      expect((await h.ms.versions.readMeta((await h.core.objects.head('snaps', 'row-only/tagged')).manifestId!))?.tags).toEqual({ t: '1' });
    });

    it('an empty object (a folder marker) is stored in its row too: PUT writes no version_meta, GET reads nothing more', async () => {
      const { result: put1, cql } = await queriesOf(h.client, () => plain('row-only/folder/', Buffer.alloc(0)));
      expect(cql.filter((q) => /version_meta|version_blocks/.test(q))).toEqual([]);
      const head1 = await queriesOf(h.client, () => h.core.objects.head('snaps', 'row-only/folder/'));
      expect(head1.cql).toHaveLength(1);
      expect(head1.result).toMatchObject({ versionId: put1.versionId, size: 0, etag: '"d41d8cd98f00b204e9800998ecf8427e"' });
      expect(head1.result.meta).toMatchObject({ contentType: 'text/x-plain', userMeta: { colour: 'red' } });
      const read = await queriesOf(h.client, async () => drain(await h.core.objects.openBody(head1.result)));
      expect(read.cql).toEqual([]);
      expect(read.result).toHaveLength(0);
      expect(await h.ms.versions.readMeta(head1.result.manifestId!)).toBeUndefined();
      // a copy of it is one too
      await h.core.objects.copy({ bucket: 'snaps', key: 'row-only/folder-copy/', owner: alice, source: { bucket: 'snaps', key: 'row-only/folder/' }, metadataDirective: 'COPY', meta: { userMeta: {} } });
      const copied = await h.core.objects.head('snaps', 'row-only/folder-copy/');
      expect(copied.size).toBe(0);
      expect(await drain(await h.core.objects.openBody(copied))).toHaveLength(0);
    });

    it('CopyObject and UploadPartCopy of a body in its row read only the source row: no version_meta, no version_blocks', async () => {
      const data = pattern(3000, 9);
      await plain('row-only/copy-src', data);
      await h.core.buckets.resolve('snaps');
      const { result: copied, cql } = await queriesOf(h.client, () =>
        h.core.objects.copy({ bucket: 'snaps', key: 'row-only/copy-dst', owner: alice, source: { bucket: 'snaps', key: 'row-only/copy-src' }, metadataDirective: 'COPY', meta: { userMeta: {} } }),
      );
      expect(copied.size).toBe(3000);
      expect(cql.filter((q) => /FROM version_blocks|FROM version_meta/.test(q))).toEqual([]);
      const v = await h.core.objects.head('snaps', 'row-only/copy-dst');
      expect(v.meta).toMatchObject({ contentType: 'text/x-plain', userMeta: { colour: 'red' } });
      expect((await drain(await h.core.objects.openBody(v))).equals(data)).toBe(true);

      // UploadPartCopy of it neither
      const upload = await h.core.multipart.create({ bucket: 'snaps', key: 'row-only/copy-mp', owner: alice, meta: { userMeta: {} } });
      const partCopy = await queriesOf(h.client, () =>
        h.core.multipart.uploadPartCopy({ bucket: 'snaps', key: 'row-only/copy-mp', uploadId: upload.uploadId, partNumber: 1, source: { bucket: 'snaps', key: 'row-only/copy-src' } }),
      );
      expect(partCopy.cql.filter((q) => /FROM version_blocks|FROM version_meta/.test(q))).toEqual([]);
      await h.core.multipart.complete({ bucket: 'snaps', key: 'row-only/copy-mp', uploadId: upload.uploadId, parts: [{ partNumber: 1, etag: partCopy.result.etag }] });
      const mp = await h.core.objects.head('snaps', 'row-only/copy-mp');
      expect((await drain(await h.core.objects.openBody(mp))).equals(data)).toBe(true);
    });

    it('a tag or ACL change writes version_meta from the row first: nothing of the metadata is lost', async () => {
      const put1 = await plain('row-only/b', pattern(2000, 5));
      const vid = (await h.core.objects.head('snaps', 'row-only/b')).manifestId!;
      await h.core.objects.setTags('snaps', 'row-only/b', { team: 'x' });
      const v = await h.core.objects.head('snaps', 'row-only/b');
      expect(v.meta).toMatchObject({ contentType: 'text/x-plain', userMeta: { colour: 'red' }, tags: { team: 'x' }, acl: 'public-read' });
      expect(v.checksums).toEqual({ CRC32: put1.checksums.CRC32 });
      expect((await h.ms.versions.readMeta(vid))?.contentType).toBe('text/x-plain');
      expect(await h.ms.versions.tagsOf([vid], { concurrency: 1 })).toEqual(new Map([[vid, { team: 'x' }]]));

      await plain('row-only/c', pattern(10, 5));
      await h.core.objects.setAcl('snaps', 'row-only/c', 'private');
      expect((await h.core.objects.head('snaps', 'row-only/c')).meta).toMatchObject({ contentType: 'text/x-plain', userMeta: { colour: 'red' }, acl: 'private' });
    });

    it('a tag change racing the removal of its version answers NoSuchVersion and leaves no version_meta behind', async () => {
      const put1 = await plain('row-only/d', pattern(10, 6));
      const vid = (await h.core.objects.head('snaps', 'row-only/d')).manifestId!;
      const versions = h.ms.versions;
      const insert = versions.insertMetaIfAbsent;
      // the version is removed (row and version_meta) after the tag call read it, before it writes version_meta
      versions.insertMetaIfAbsent = async (meta) => {
        await h.core.objects.delete('snaps', 'row-only/d', alice, put1.versionId);
        return insert.call(versions, meta);
      };
      try {
        expect((await s3code(h.core.objects.setTags('snaps', 'row-only/d', { late: 'yes' }, put1.versionId))).code).toBe('NoSuchVersion');
      } finally {
        versions.insertMetaIfAbsent = insert;
      }
      expect(await h.ms.versions.readMeta(vid)).toBeUndefined();
    });
  });

  it('keeps working for rows written without a snapshot (before migration 006, multipart)', async () => {
    await put(h.core, 'snaps', 'plain', 'plain body');
    const bucketId = (await h.core.buckets.resolve('snaps')).bucketId;
    const [row] = await h.ms.versions.newest(bucketId, '', 'plain', 1, { body: true });
    // such a row always has its version_meta (a small plain object now has none: rowOnlyMeta)
    expect(await h.ms.versions.readMeta(row.vid)).toBeUndefined();
    await h.ms.versions.insertMetaIfAbsent(row.snapshot!);
    await h.ms.versions.dropSnapshot(row, Date.now() * 1000);
    const { result: v, cql } = await queriesOf(h.client, () => h.core.objects.head('snaps', 'plain'));
    expect(cql.some((q) => /FROM version_meta/.test(q))).toBe(true);
    expect((await drain(await h.core.objects.openBody(v))).toString()).toBe('plain body');
  });

  it('copies and part-copies bodies stored in the row, also after their snapshot was dropped', async () => {
    const data = pattern(5000, 11);
    await putWithMeta('src-small', data);
    await h.core.objects.setTags('snaps', 'src-small', { copied: 'yes' }); // drops the snapshot
    const copied = await h.core.objects.copy({
      source: { bucket: 'snaps', key: 'src-small' },
      bucket: 'snaps',
      key: 'dst-small',
      owner: alice,
      metadataDirective: 'COPY',
      meta: { userMeta: {} },
    });
    expect(copied.size).toBe(5000);
    const v = await h.core.objects.head('snaps', 'dst-small');
    expect(v.meta).toMatchObject({ contentType: 'text/x-snap', userMeta: { colour: 'blue' }, tags: { copied: 'yes' } });
    expect((await drain(await h.core.objects.openBody(v))).equals(data)).toBe(true);

    const upload = await h.core.multipart.create({
      bucket: 'snaps',
      key: 'mp-of-small',
      owner: alice,
      meta: { userMeta: {} },
    });
    const part = await h.core.multipart.uploadPartCopy({
      bucket: 'snaps',
      key: 'mp-of-small',
      uploadId: upload.uploadId,
      partNumber: 1,
      source: { bucket: 'snaps', key: 'src-small' },
      range: { start: 100, endInclusive: 1099 },
    });
    await h.core.multipart.complete({
      bucket: 'snaps',
      key: 'mp-of-small',
      uploadId: upload.uploadId,
      parts: [{ partNumber: 1, etag: part.etag }],
    });
    const mp = await h.core.objects.head('snaps', 'mp-of-small');
    expect((await drain(await h.core.objects.openBody(mp))).equals(data.subarray(100, 1100))).toBe(true);
  });
});
