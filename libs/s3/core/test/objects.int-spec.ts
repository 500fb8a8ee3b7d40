import { createHash } from 'crypto';
import { splitKey } from '../src';
import { alice, body, drain, get, harness, Harness, pattern, put, refsOf, s3code } from './support';

describe('ObjectsService against a real Cassandra (unversioned bucket)', () => {
  let h: Harness;
  const B = 'objects-bucket';
  beforeAll(async () => {
    h = await harness('objects');
    await h.core.buckets.create({ name: B, owner: alice, location: '', acl: 'private' });
  });
  afterAll(() => h.close());

  it('stores a multi-block body with its ETag, checksums and metadata, and reads it back whole and by range', async () => {
    const data = pattern(300 * 1024, 7);
    const res = await h.core.objects.put({
      bucket: B,
      key: 'images/pets/cats/black.png',
      owner: alice,
      body: body(data),
      checksumAlgorithms: ['CRC32C', 'SHA256'],
      meta: { contentType: 'image/png', cacheControl: 'no-cache', userMeta: { colour: 'black' }, tags: { a: '1' } },
    });
    expect(res.versionId).toBe('null');
    expect(res.etag).toBe(`"${createHash('md5').update(data).digest('hex')}"`);
    expect(res.checksums.SHA256).toBe(createHash('sha256').update(data).digest('base64'));
    expect(res.size).toBe(data.length);

    const v = await h.core.objects.head(B, 'images/pets/cats/black.png');
    expect(v).toMatchObject({
      versionId: 'null',
      isLatest: true,
      isDeleteMarker: false,
      size: data.length,
      etag: res.etag,
      owner: alice,
      storageClass: 'STANDARD',
      meta: { contentType: 'image/png', cacheControl: 'no-cache', userMeta: { colour: 'black' }, tags: { a: '1' } },
      checksums: { CRC32C: res.checksums.CRC32C, SHA256: res.checksums.SHA256 },
    });
    expect((await drain(await h.core.objects.openBody(v))).equals(data)).toBe(true);
    const slice = await drain(await h.core.objects.openBody(v, { start: 65530, endInclusive: 131080 }));
    expect(slice.equals(data.subarray(65530, 131081))).toBe(true);
    expect((await s3code(h.core.objects.openBody(v, { start: data.length, endInclusive: data.length + 5 }))).code).toBe(
      'InvalidRange',
    );
    expect(await h.core.objects.partRange(v, 1)).toEqual({ start: 0, endInclusive: data.length - 1 });
    expect(h.usage.some((u) => u.kind === 'store' && u.bytes === data.length)).toBe(true);
  });

  it('stores nothing when the verifier rejects the body, and discards its blocks', async () => {
    const err = new Error('BadDigest');
    await expect(
      h.core.objects.put({
        bucket: B,
        key: 'rejected',
        owner: alice,
        body: body(pattern(100 * 1024)),
        meta: { userMeta: {} },
        verify: () => {
          throw err;
        },
      }),
    ).rejects.toBe(err);
    expect((await s3code(h.core.objects.head(B, 'rejected'))).code).toBe('NoSuchKey');
  });

  it('accepts empty bodies and odd keys (trailing slash, double slash, unicode)', async () => {
    for (const key of ['dir/', 'a//b', '/lead', 'ключ/файл 😀.txt', 'x/y/z/']) {
      await put(h.core, B, key, key === 'dir/' ? '' : `body of ${key}`);
      expect(await get(h.core, B, key)).toBe(key === 'dir/' ? '' : `body of ${key}`);
    }
    const list = await h.core.objects.list({ bucket: B, prefix: 'x/', maxKeys: 10 });
    expect(list.contents.map((c) => c.key)).toEqual(['x/y/z/']);
  });

  it('replaces the null version on overwrite and releases the old blocks', async () => {
    await put(h.core, B, 'over', pattern(70 * 1024, 1));
    const first = await h.core.objects.head(B, 'over');
    const oldBlocks = await h.ms.versions.readBlocks(first.manifestId!);
    expect(await refsOf(h.client, oldBlocks[0].blockId)).toEqual([`v:${first.manifestId}`]);
    await put(h.core, B, 'over', 'second');
    expect(await get(h.core, B, 'over')).toBe('second');
    expect(await refsOf(h.client, oldBlocks[0].blockId)).toEqual([]);
    // the index cell carries the version's vts as its write timestamp (the convergence rule)
    const second = await h.core.objects.head(B, 'over');
    const bucketId = (await h.core.buckets.get(B)).bucketId;
    const [row] = await h.ms.versions.newest(bucketId, '', 'over', 1);
    expect(row.vid).toBe(second.manifestId);
    expect((await h.ms.objects.get(bucketId, '', 'over'))?.writetime).toBe(row.vts);
    const versions = await h.core.objects.listVersions({ bucket: B, prefix: 'over', maxKeys: 10 });
    expect(versions.versions.map((v) => [v.key, v.versionId, v.isLatest])).toEqual([['over', 'null', true]]);
  });

  it('deletes: the key disappears everywhere, deleting again succeeds, a later PUT is visible', async () => {
    await put(h.core, B, 'gone/soon', 'x');
    expect(await h.core.objects.delete(B, 'gone/soon', alice)).toEqual({ deleteMarker: false });
    expect((await s3code(h.core.objects.head(B, 'gone/soon'))).code).toBe('NoSuchKey');
    expect((await h.core.objects.list({ bucket: B, prefix: 'gone', maxKeys: 10 })).contents).toEqual([]);
    expect((await h.core.objects.list({ bucket: B, prefix: 'gone', delimiter: '/', maxKeys: 10 })).commonPrefixes).toEqual([]);
    expect((await h.core.objects.listVersions({ bucket: B, prefix: 'gone', maxKeys: 10 })).versions).toEqual([]);
    expect(await h.core.objects.delete(B, 'gone/soon', alice)).toEqual({ deleteMarker: false });
    expect(await h.core.objects.delete(B, 'never/was', alice)).toEqual({ deleteMarker: false });
    await put(h.core, B, 'gone/soon', 'back');
    expect(await get(h.core, B, 'gone/soon')).toBe('back');
    const { parent, name } = splitKey('gone/soon');
    const bucket = await h.core.buckets.get(B);
    expect(await h.ms.versions.nullRows(bucket.bucketId, parent, name)).toHaveLength(1);
  });

  it('lists in S3 order with prefixes, delimiters, markers and pagination', async () => {
    const LB = 'listing-bucket';
    await h.core.buckets.create({ name: LB, owner: alice, location: '', acl: 'private' });
    const keys = ['a', 'a-b', 'a/b', 'a/c/d', 'a/c/e', 'a0', 'b/x', 'b/y/', 'c'];
    for (const k of keys) await put(h.core, LB, k, k);
    const all = await h.core.objects.list({ bucket: LB, maxKeys: 100 });
    expect(all.contents.map((c) => c.key)).toEqual(keys);
    expect(all.isTruncated).toBe(false);
    expect(all.contents[0]).toMatchObject({ size: 1, owner: alice, versionId: 'null' });

    const grouped = await h.core.objects.list({ bucket: LB, delimiter: '/', maxKeys: 100 });
    expect(grouped.contents.map((c) => c.key)).toEqual(['a', 'a-b', 'a0', 'c']);
    expect(grouped.commonPrefixes).toEqual(['a/', 'b/']);

    const midName = await h.core.objects.list({ bucket: LB, prefix: 'a/c', delimiter: '/', maxKeys: 100 });
    expect(midName.commonPrefixes).toEqual(['a/c/']);

    const pages: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await h.core.objects.list({ bucket: LB, delimiter: '/', after, maxKeys: 2 });
      pages.push(...page.contents.map((c) => c.key), ...page.commonPrefixes.map((p) => `[${p}]`));
      if (!page.isTruncated) break;
      after = page.nextAfter;
    }
    expect(pages.sort()).toEqual(['[a/]', '[b/]', 'a', 'a-b', 'a0', 'c'].sort());

    const zero = await h.core.objects.list({ bucket: LB, maxKeys: 0 });
    expect(zero).toMatchObject({ contents: [], commonPrefixes: [], isTruncated: false });

    await h.core.objects.delete(LB, 'b/x', alice);
    await h.core.objects.delete(LB, 'b/y/', alice);
    const afterDelete = await h.core.objects.list({ bucket: LB, delimiter: '/', maxKeys: 100 });
    expect(afterDelete.commonPrefixes).toEqual(['a/']);
  });

  it('conditional PUTs: If-None-Match * creates once, If-Match needs the current ETag', async () => {
    const first = await h.core.objects.put({ bucket: B, key: 'cond', owner: alice, body: body('1'), meta: { userMeta: {} }, ifNoneMatch: '*' });
    expect((await s3code(h.core.objects.put({ bucket: B, key: 'cond', owner: alice, body: body('2'), meta: { userMeta: {} }, ifNoneMatch: '*' }))).code).toBe(
      'PreconditionFailed',
    );
    expect((await s3code(h.core.objects.put({ bucket: B, key: 'cond', owner: alice, body: body('3'), meta: { userMeta: {} }, ifMatch: '"0000"' }))).code).toBe(
      'PreconditionFailed',
    );
    await h.core.objects.put({ bucket: B, key: 'cond', owner: alice, body: body('4'), meta: { userMeta: {} }, ifMatch: first.etag });
    expect(await get(h.core, B, 'cond')).toBe('4');
    expect((await s3code(h.core.objects.put({ bucket: B, key: 'cond-missing', owner: alice, body: body('5'), meta: { userMeta: {} }, ifMatch: first.etag }))).code).toBe(
      'NoSuchKey',
    );
    // racing conditional creates: exactly one wins
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        h.core.objects.put({ bucket: B, key: 'cond-race', owner: alice, body: body(`r${i}`), meta: { userMeta: {} }, ifNoneMatch: '*' }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    // a key claimed by a conditional PUT in progress (a claim-only row) does not cut listings short
    const bucketId = (await h.core.buckets.get(B)).bucketId;
    await h.ms.objects.claim(bucketId, '', 'cond-0', null, 'someone', 60);
    const page = await h.ms.objects.page(bucketId, '', { gte: 'cond', lt: 'cone' }, 2);
    expect(page.map((r) => r.name)).toEqual(['cond', 'cond-race']);
    const around = await h.core.objects.list({ bucket: B, prefix: 'cond', maxKeys: 1000 });
    expect(around.contents.map((c) => c.key)).toEqual(['cond', 'cond-race']);
    await h.ms.objects.releaseClaim(bucketId, '', 'cond-0', 'someone');
    for (const r of results)
      if (r.status === 'rejected') expect(['PreconditionFailed', 'ConditionalRequestConflict']).toContain((r.reason as { code: string }).code);
  });

  it('rejects missing buckets, empty and too long keys, and more than 10 tags', async () => {
    expect((await s3code(put(h.core, 'nope-bucket', 'k', 'x'))).code).toBe('NoSuchBucket');
    expect((await s3code(put(h.core, B, 'k'.repeat(1025), 'x'))).code).toBe('KeyTooLongError');
    const tags = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v']));
    expect((await s3code(h.core.objects.put({ bucket: B, key: 't', owner: alice, body: body('x'), meta: { userMeta: {}, tags } }))).code).toBe(
      'BadRequest',
    );
  });
});
