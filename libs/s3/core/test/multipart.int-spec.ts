import { createHash } from 'crypto';
import { PassThrough } from 'stream';
import { FakeClock } from '@ostore/shared/clock/testing';
import { alice, body, drain, harness, Harness, pattern, put, refsOf, s3code } from './support';

const KiB = 1024;
const md5 = (b: Buffer) => createHash('md5').update(b).digest();

describe('multipart uploads against a real Cassandra', () => {
  let h: Harness;
  const B = 'mpu-bucket';
  beforeAll(async () => {
    h = await harness('multipart'); // minPartSize 100 KiB, blocks of 64 KiB
    await h.core.buckets.create({ name: B, owner: alice, location: '', acl: 'private' });
  });
  afterAll(() => h.close());

  const create = (key: string, extra: Partial<Parameters<Harness['core']['multipart']['create']>[0]> = {}) =>
    h.core.multipart.create({ bucket: B, key, owner: alice, meta: { contentType: 'video/mp4', userMeta: { u: '1' } }, ...extra });
  const bytes = async (key: string) => drain(await h.core.objects.openBody(await h.core.objects.head(B, key)));
  const part = (key: string, uploadId: string, partNumber: number, data: Buffer) =>
    h.core.multipart.uploadPart({ bucket: B, key, uploadId, partNumber, body: body(data) });

  it('assembles the parts in order, with the S3 multipart ETag, and serves each part', async () => {
    const up = await create('movies/big.mp4');
    expect(up.uploadId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const p1 = pattern(150 * KiB, 1);
    const p2 = pattern(130 * KiB, 2);
    const p3 = pattern(10 * KiB, 3);
    const e1 = await part('movies/big.mp4', up.uploadId, 1, p1);
    const stale = await part('movies/big.mp4', up.uploadId, 2, pattern(120 * KiB, 9));
    const e2 = await part('movies/big.mp4', up.uploadId, 2, p2);
    expect(e2.etag).not.toBe(stale.etag);
    const e3 = await part('movies/big.mp4', up.uploadId, 3, p3);
    expect(e1).toMatchObject({ partNumber: 1, size: p1.length, etag: `"${md5(p1).toString('hex')}"` });

    const listed = await h.core.multipart.listParts({ bucket: B, key: 'movies/big.mp4', uploadId: up.uploadId, maxParts: 2 });
    expect(listed.parts.map((p) => [p.partNumber, p.etag])).toEqual([
      [1, e1.etag],
      [2, e2.etag],
    ]);
    expect(listed).toMatchObject({ isTruncated: true, nextPartNumberMarker: 2, upload: { key: 'movies/big.mp4', meta: { contentType: 'video/mp4' } } });
    const rest = await h.core.multipart.listParts({ bucket: B, key: 'movies/big.mp4', uploadId: up.uploadId, partNumberMarker: 2, maxParts: 2 });
    expect(rest.parts.map((p) => p.partNumber)).toEqual([3]);
    expect(rest.isTruncated).toBe(false);

    const done = await h.core.multipart.complete({
      bucket: B,
      key: 'movies/big.mp4',
      uploadId: up.uploadId,
      parts: [
        { partNumber: 1, etag: e1.etag },
        { partNumber: 2, etag: e2.etag },
        { partNumber: 3, etag: e3.etag },
      ],
    });
    const expectedEtag = `"${md5(Buffer.concat([md5(p1), md5(p2), md5(p3)])).toString('hex')}-3"`;
    expect(done).toMatchObject({ versionId: 'null', etag: expectedEtag, size: p1.length + p2.length + p3.length });
    const v = await h.core.objects.head(B, 'movies/big.mp4');
    expect(v).toMatchObject({ etag: expectedEtag, partCount: 3, meta: { contentType: 'video/mp4', userMeta: { u: '1' } } });
    expect((await drain(await h.core.objects.openBody(v))).equals(Buffer.concat([p1, p2, p3]))).toBe(true);
    expect(await h.core.objects.partRange(v, 2)).toEqual({ start: p1.length, endInclusive: p1.length + p2.length - 1 });
    expect((await drain(await h.core.objects.openBody(v, undefined, 3))).equals(p3)).toBe(true);
    expect((await s3code(h.core.objects.partRange(v, 4))).code).toBe('InvalidPartNumber');

    // the version owns the blocks now; no part reference is left
    const blocks = await h.ms.versions.readBlocks(v.manifestId!);
    for (const b of blocks) expect(await refsOf(h.client, b.blockId)).toEqual([`v:${v.manifestId}`]);

    // a retried completion answers the same; the upload is otherwise gone
    const again = await h.core.multipart.complete({
      bucket: B,
      key: 'movies/big.mp4',
      uploadId: up.uploadId,
      parts: [
        { partNumber: 1, etag: e1.etag },
        { partNumber: 2, etag: e2.etag },
        { partNumber: 3, etag: e3.etag },
      ],
    });
    expect(again).toEqual(done);
    expect((await s3code(part('movies/big.mp4', up.uploadId, 4, p3))).code).toBe('NoSuchUpload');
    expect((await s3code(h.core.multipart.abort(B, 'movies/big.mp4', up.uploadId))).code).toBe('NoSuchUpload');
    expect((await h.core.multipart.listUploads({ bucket: B, maxUploads: 10 })).uploads).toEqual([]);
    expect((await h.core.objects.listVersions({ bucket: B, prefix: 'movies/', maxKeys: 10 })).versions).toHaveLength(1);
  });

  it('enforces part order, existence, ETags and the minimum part size', async () => {
    const up = await create('rules');
    const big = await part('rules', up.uploadId, 1, pattern(120 * KiB));
    const small = await part('rules', up.uploadId, 2, pattern(50 * KiB));
    const last = await part('rules', up.uploadId, 3, pattern(5 * KiB));
    const complete = (parts: { partNumber: number; etag: string }[]) =>
      s3code(h.core.multipart.complete({ bucket: B, key: 'rules', uploadId: up.uploadId, parts }));
    expect((await complete([])).code).toBe('MalformedXML');
    expect(
      (await complete([
        { partNumber: 2, etag: small.etag },
        { partNumber: 1, etag: big.etag },
      ])).code,
    ).toBe('InvalidPartOrder');
    expect((await complete([{ partNumber: 1, etag: '"00000000000000000000000000000000"' }])).code).toBe('InvalidPart');
    expect((await complete([{ partNumber: 7, etag: big.etag }])).code).toBe('InvalidPart');
    const tooSmall = await complete([
      { partNumber: 1, etag: big.etag },
      { partNumber: 2, etag: small.etag },
      { partNumber: 3, etag: last.etag },
    ]);
    expect(tooSmall).toEqual({ code: 'EntityTooSmall', extra: expect.objectContaining({ PartNumber: '2' }) });
    // skipping part 2 is allowed; its blocks are released at completion
    const smallRows = await h.ms.uploads.partRows(
      (await h.ms.uploads.page((await h.core.buckets.get(B)).bucketId, '', { gte: 'rules', lt: 'rulet' }, 10))[0].uploadId,
      2,
    );
    await h.core.multipart.complete({
      bucket: B,
      key: 'rules',
      uploadId: up.uploadId,
      parts: [
        { partNumber: 1, etag: big.etag.replace(/"/g, '') },
        { partNumber: 3, etag: last.etag },
      ],
    });
    expect(await bytes('rules')).toEqual(Buffer.concat([pattern(120 * KiB), pattern(5 * KiB)]));
    expect(await refsOf(h.client, smallRows[0].blocks[0].blockId)).toEqual([]);
    expect((await s3code(h.core.multipart.uploadPart({ bucket: B, key: 'rules', uploadId: 'garbage', partNumber: 1, body: body('x') }))).code).toBe(
      'NoSuchUpload',
    );
  });

  it('replacing a part releases the blocks of the old one; abort releases everything', async () => {
    const up = await create('aborted/one');
    await part('aborted/one', up.uploadId, 1, pattern(70 * KiB, 1));
    const bucketId = (await h.core.buckets.get(B)).bucketId;
    const uploadVid = (await h.ms.uploads.page(bucketId, 'aborted/', {}, 10))[0].uploadId;
    const [first] = await h.ms.uploads.partRows(uploadVid, 1);
    await part('aborted/one', up.uploadId, 1, pattern(70 * KiB, 2));
    expect(await refsOf(h.client, first.blocks[0].blockId)).toEqual([]);
    const rows = await h.ms.uploads.partRows(uploadVid, 1);
    expect(rows).toHaveLength(1);
    await h.core.multipart.abort(B, 'aborted/one', up.uploadId);
    expect(await refsOf(h.client, rows[0].blocks[0].blockId)).toEqual([]);
    expect((await s3code(h.core.multipart.listParts({ bucket: B, key: 'aborted/one', uploadId: up.uploadId, maxParts: 10 }))).code).toBe(
      'NoSuchUpload',
    );
  });

  /** A part whose body is held back until `release` (its upload resolved and the body being read). */
  const heldPart = (key: string, uploadId: string, partNumber: number, data: Buffer) => {
    const stream = new PassThrough();
    const reading = new Promise<void>((resolve) => stream.once('resume', () => resolve()));
    stream.write(data.subarray(0, 1024));
    const answer = s3code(h.core.multipart.uploadPart({ bucket: B, key, uploadId, partNumber, body: stream }));
    return { reading, answer, release: () => stream.end(data.subarray(1024)) };
  };
  const partRefs = async (uploadVid: string) =>
    (await h.client.execute('SELECT block_id, ref FROM block_refs')).rows.filter((r) => String(r['ref']).startsWith(`p:${uploadVid}:`));
  /** Net bytes of the usage events since `from`, each event id counted once (as the stats app does). */
  const netBytes = (from: number) => {
    const seen = new Set<string>();
    return h.usage.slice(from).reduce((sum, e) => {
      if (e.eventId && seen.has(e.eventId)) return sum;
      if (e.eventId) seen.add(e.eventId);
      return sum + e.bytes;
    }, 0);
  };
  const uploadVidOf = async (name: string) =>
    (await h.ms.uploads.page((await h.core.buckets.get(B)).bucketId, 'late/', {}, 10)).find((u) => u.name === name)!.uploadId;

  it('a part still arriving when its upload is aborted is not kept: NoSuchUpload, no part row, no block reference, no net usage', async () => {
    const up = await create('late/aborted');
    const uploadVid = await uploadVidOf('aborted');
    const from = h.usage.length;
    const held = heldPart('late/aborted', up.uploadId, 1, pattern(150 * KiB, 7));
    await held.reading;
    await h.core.multipart.abort(B, 'late/aborted', up.uploadId);
    held.release();
    expect((await held.answer).code).toBe('NoSuchUpload');
    expect(await h.ms.uploads.partRows(uploadVid, 1)).toEqual([]);
    expect(await partRefs(uploadVid)).toEqual([]);
    expect(netBytes(from)).toBe(0);
  });

  it('a part still arriving when its upload is completed without it is not kept, and the object is whole', async () => {
    const up = await create('late/completed');
    const uploadVid = await uploadVidOf('completed');
    const from = h.usage.length;
    const first = await part('late/completed', up.uploadId, 1, pattern(120 * KiB, 1));
    const held = heldPart('late/completed', up.uploadId, 2, pattern(150 * KiB, 2));
    await held.reading;
    await h.core.multipart.complete({ bucket: B, key: 'late/completed', uploadId: up.uploadId, parts: [{ partNumber: 1, etag: first.etag }] });
    held.release();
    expect((await held.answer).code).toBe('NoSuchUpload');
    expect(await bytes('late/completed')).toEqual(pattern(120 * KiB, 1));
    expect(await h.ms.uploads.partRows(uploadVid, 2)).toEqual([]);
    expect(await partRefs(uploadVid)).toEqual([]);
    expect(netBytes(from)).toBe(120 * KiB);
  });

  it('a part copy whose row lands after its upload was aborted is not kept either', async () => {
    await put(h.core, B, 'late/src', pattern(150 * KiB, 3));
    const up = await create('late/copied');
    const uploadVid = await uploadVidOf('copied');
    const from = h.usage.length;
    // the copy is held just before its part row is written, while the upload is aborted
    let reached!: () => void;
    let release!: () => void;
    const atInsert = new Promise<void>((r) => (reached = r));
    const gate = new Promise<void>((r) => (release = r));
    const insertPart = h.ms.uploads.insertPart.bind(h.ms.uploads);
    const spy = jest.spyOn(h.ms.uploads, 'insertPart').mockImplementationOnce(async (row) => {
      reached();
      await gate;
      return insertPart(row);
    });
    const answer = s3code(
      h.core.multipart.uploadPartCopy({ bucket: B, key: 'late/copied', uploadId: up.uploadId, partNumber: 1, source: { bucket: B, key: 'late/src' } }),
    );
    await atInsert;
    await h.core.multipart.abort(B, 'late/copied', up.uploadId);
    release();
    expect((await answer).code).toBe('NoSuchUpload');
    spy.mockRestore();
    expect(await h.ms.uploads.partRows(uploadVid, 1)).toEqual([]);
    expect(await partRefs(uploadVid)).toEqual([]);
    // the copy's bytes counted, then its removal: nothing net
    expect(netBytes(from)).toBe(0);
    expect(await bytes('late/src')).toEqual(pattern(150 * KiB, 3));
  });

  /** Holds the next claim of a completion (after its plan was made) until `release`. */
  const holdClaim = () => {
    let reached!: () => void;
    let release!: () => void;
    const atClaim = new Promise<void>((r) => (reached = r));
    const gate = new Promise<void>((r) => (release = r));
    const claimCompletion = h.ms.uploads.claimCompletion.bind(h.ms.uploads);
    const spy = jest.spyOn(h.ms.uploads, 'claimCompletion').mockImplementationOnce(async (...args) => {
      reached();
      await gate;
      return claimCompletion(...args);
    });
    return { atClaim, release, restore: () => spy.mockRestore() };
  };

  it('a part replaced between a completion\'s plan and its claim: the claim is refused, the plan made again, and the upload stays usable', async () => {
    const up = await create('late/replaced');
    const uploadVid = await uploadVidOf('replaced');
    const from = h.usage.length;
    const first = await part('late/replaced', up.uploadId, 1, pattern(120 * KiB, 1));
    // the completion names the first upload of part 1 and is held once its plan is made
    const held = holdClaim();
    const completing = s3code(
      h.core.multipart.complete({ bucket: B, key: 'late/replaced', uploadId: up.uploadId, parts: [{ partNumber: 1, etag: first.etag }] }),
    );
    await held.atClaim;
    // part 1 is uploaded again meanwhile: its older row (the one planned) is dropped
    const second = await part('late/replaced', up.uploadId, 1, pattern(130 * KiB, 2));
    held.release();
    // planned again from the parts as they are now: the named ETag is no longer part 1's
    expect((await completing).code).toBe('InvalidPart');
    held.restore();
    const rows = await h.ms.uploads.partRows(uploadVid, 1);
    expect(rows.map((r) => r.etag)).toEqual([second.etag]);
    // not left claimed: it completes with the part as it is now, and the object is that part
    await h.core.multipart.complete({ bucket: B, key: 'late/replaced', uploadId: up.uploadId, parts: [{ partNumber: 1, etag: second.etag }] });
    expect(await bytes('late/replaced')).toEqual(pattern(130 * KiB, 2));
    expect(await partRefs(uploadVid)).toEqual([]);
    expect(netBytes(from)).toBe(130 * KiB);
  });

  it('a part replaced between a completion\'s plan and its claim, the completion naming the new part: it completes with it', async () => {
    const up = await create('late/renamed');
    const uploadVid = await uploadVidOf('renamed');
    const from = h.usage.length;
    await part('late/renamed', up.uploadId, 1, pattern(120 * KiB, 3));
    // the same bytes again: the same ETag, so the completion's list names both rows of part 1
    const held = holdClaim();
    const etag = `"${md5(pattern(120 * KiB, 3)).toString('hex')}"`;
    const completing = h.core.multipart.complete({ bucket: B, key: 'late/renamed', uploadId: up.uploadId, parts: [{ partNumber: 1, etag }] });
    await held.atClaim;
    await part('late/renamed', up.uploadId, 1, pattern(120 * KiB, 3));
    held.release();
    await completing;
    held.restore();
    expect(await bytes('late/renamed')).toEqual(pattern(120 * KiB, 3));
    expect(await h.ms.uploads.partRows(uploadVid, 1)).toEqual([]);
    expect(await partRefs(uploadVid)).toEqual([]);
    expect(netBytes(from)).toBe(120 * KiB);
  });

  it('a completion that crashed before the object became visible is finished by its retry', async () => {
    const up = await create('crash/obj');
    const e1 = await part('crash/obj', up.uploadId, 1, pattern(110 * KiB, 4));
    const e2 = await part('crash/obj', up.uploadId, 2, pattern(3 * KiB, 5));
    const parts = [
      { partNumber: 1, etag: e1.etag },
      { partNumber: 2, etag: e2.etag },
    ];
    const spy = jest.spyOn(h.ms, 'applyPartitionMutation').mockRejectedValueOnce(new Error('gateway died'));
    await expect(h.core.multipart.complete({ bucket: B, key: 'crash/obj', uploadId: up.uploadId, parts })).rejects.toThrow('gateway died');
    spy.mockRestore();
    expect((await s3code(h.core.objects.head(B, 'crash/obj'))).code).toBe('NoSuchKey');
    // still listed, and a plain abort refuses while the completion is fresh
    expect((await h.core.multipart.listUploads({ bucket: B, prefix: 'crash/', maxUploads: 10 })).uploads).toHaveLength(1);
    expect((await s3code(h.core.multipart.abort(B, 'crash/obj', up.uploadId))).code).toBe('OperationAborted');
    const done = await h.core.multipart.complete({ bucket: B, key: 'crash/obj', uploadId: up.uploadId, parts });
    expect(done.size).toBe(113 * KiB);
    expect(await bytes('crash/obj')).toEqual(Buffer.concat([pattern(110 * KiB, 4), pattern(3 * KiB, 5)]));
    // the retry found the blocks moved to the version already; no part reference is left
    const v = await h.core.objects.head(B, 'crash/obj');
    for (const b of await h.ms.versions.readBlocks(v.manifestId!)) expect(await refsOf(h.client, b.blockId)).toEqual([`v:${v.manifestId}`]);
  });

  it('UploadPartCopy shares the blocks inside the range and copies the edges', async () => {
    const src = pattern(200 * KiB, 11);
    await h.core.objects.put({ bucket: B, key: 'copy-src', owner: alice, body: body(src), meta: { userMeta: {} } });
    const srcHead = await h.core.objects.head(B, 'copy-src');
    const srcBlocks = await h.ms.versions.readBlocks(srcHead.manifestId!);
    const up = await create('copy-dst');
    const range = { start: 10 * KiB, endInclusive: 150 * KiB - 1 };
    const p1 = await h.core.multipart.uploadPartCopy({ bucket: B, key: 'copy-dst', uploadId: up.uploadId, partNumber: 1, source: { bucket: B, key: 'copy-src' }, range });
    const expected1 = src.subarray(range.start, range.endInclusive + 1);
    expect(p1).toMatchObject({ size: expected1.length, etag: `"${md5(expected1).toString('hex')}"` });
    const p2 = await h.core.multipart.uploadPartCopy({ bucket: B, key: 'copy-dst', uploadId: up.uploadId, partNumber: 2, source: { bucket: B, key: 'copy-src' } });
    expect(p2.etag).toBe(srcHead.etag);
    await h.core.multipart.complete({
      bucket: B,
      key: 'copy-dst',
      uploadId: up.uploadId,
      parts: [
        { partNumber: 1, etag: p1.etag },
        { partNumber: 2, etag: p2.etag },
      ],
    });
    const v = await h.core.objects.head(B, 'copy-dst');
    expect((await drain(await h.core.objects.openBody(v))).equals(Buffer.concat([expected1, src]))).toBe(true);
    const dstIds = new Set((await h.ms.versions.readBlocks(v.manifestId!)).map((b) => b.blockId));
    // block 1 (64-128 KiB) lies inside the range: shared; blocks 0 and 2 are cut: copied in part 1
    expect(dstIds.has(srcBlocks[1].blockId)).toBe(true);
    expect(srcBlocks.every((b) => dstIds.has(b.blockId))).toBe(true); // part 2 shares all of them
    expect(await refsOf(h.client, srcBlocks[1].blockId)).toEqual([`v:${srcHead.manifestId}`, `v:${v.manifestId}`].sort());
    expect(
      (await s3code(h.core.multipart.uploadPartCopy({ bucket: B, key: 'copy-dst', uploadId: 'x'.repeat(22), partNumber: 1, source: { bucket: B, key: 'copy-src' } })))
        .code,
    ).toBe('NoSuchUpload');
  });

  it('composes checksums when the upload asked for one', async () => {
    const up = await create('sums', { checksumAlgorithm: 'CRC32C' });
    const a = await part('sums', up.uploadId, 1, pattern(110 * KiB, 1));
    const b = await part('sums', up.uploadId, 2, pattern(1 * KiB, 2));
    expect(a.checksums.CRC32C).toBeDefined();
    const done = await h.core.multipart.complete({
      bucket: B,
      key: 'sums',
      uploadId: up.uploadId,
      parts: [
        { partNumber: 1, etag: a.etag },
        { partNumber: 2, etag: b.etag },
      ],
    });
    expect(done.checksums.CRC32C).toMatch(/^[A-Za-z0-9+/]+=*-2$/);
    expect((await h.core.objects.head(B, 'sums')).checksums.CRC32C).toBe(done.checksums.CRC32C);
  });

  it('lists uploads with prefix, delimiter and key / upload-id markers', async () => {
    const LB = 'mpu-list';
    await h.core.buckets.create({ name: LB, owner: alice, location: '', acl: 'private' });
    const made: [string, string][] = [];
    for (const key of ['a/1', 'a/2', 'b', 'b', 'c/d/e']) {
      const u = await h.core.multipart.create({ bucket: LB, key, owner: alice, meta: { userMeta: {} } });
      made.push([key, u.uploadId]);
    }
    const all = await h.core.multipart.listUploads({ bucket: LB, maxUploads: 100 });
    expect(all.uploads.map((u) => [u.key, u.uploadId])).toEqual(made);
    const grouped = await h.core.multipart.listUploads({ bucket: LB, delimiter: '/', maxUploads: 100 });
    expect(grouped.commonPrefixes).toEqual(['a/', 'c/']);
    expect(grouped.uploads.map((u) => u.key)).toEqual(['b', 'b']);
    const got: [string, string][] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const page = await h.core.multipart.listUploads({ bucket: LB, keyMarker, uploadIdMarker, maxUploads: 2 });
      got.push(...page.uploads.map((u) => [u.key, u.uploadId] as [string, string]));
      if (!page.isTruncated) break;
      keyMarker = page.nextKeyMarker;
      uploadIdMarker = page.nextUploadIdMarker;
    }
    expect(got).toEqual(made);
  });
});

describe('a multipart completion that dies after its blocks moved to the version', () => {
  let h: Harness;
  const clock = new FakeClock(Date.now());
  const B = 'mpu-moved';
  beforeAll(async () => {
    h = await harness('multipart_moved', {}, clock);
    await h.core.buckets.create({ name: B, owner: alice, location: '', acl: 'private' });
  });
  afterAll(() => h.close());

  const statusOf = async (blockId: string) =>
    (await h.client.execute('SELECT status, is_alive FROM block_refs WHERE block_id = ?', [blockId])).rows.find((r) => r['is_alive'] === true);

  it('holds them by the version until its abort, once stale, drops the manifest: then nothing is left', async () => {
    const up = await h.core.multipart.create({ bucket: B, key: 'dies/obj', owner: alice, meta: { userMeta: {} } });
    const e1 = await h.core.multipart.uploadPart({ bucket: B, key: 'dies/obj', uploadId: up.uploadId, partNumber: 1, body: body(pattern(130 * KiB, 61)) });
    const e2 = await h.core.multipart.uploadPart({ bucket: B, key: 'dies/obj', uploadId: up.uploadId, partNumber: 2, body: body(pattern(5 * KiB, 62)) });
    const bucketId = (await h.core.buckets.get(B)).bucketId;
    const uploadVid = (await h.ms.uploads.page(bucketId, 'dies/', {}, 10))[0].uploadId;
    const blocks = [...(await h.ms.uploads.partRows(uploadVid, 1)), ...(await h.ms.uploads.partRows(uploadVid, 2))].flatMap((r) => r.blocks);
    expect(blocks).toHaveLength(4); // 64 KiB blocks: 3 + 1
    const parts = [
      { partNumber: 1, etag: e1.etag },
      { partNumber: 2, etag: e2.etag },
    ];
    const spy = jest.spyOn(h.ms, 'applyPartitionMutation').mockRejectedValueOnce(new Error('gateway died'));
    await expect(h.core.multipart.complete({ bucket: B, key: 'dies/obj', uploadId: up.uploadId, parts })).rejects.toThrow('gateway died');
    spy.mockRestore();

    // every block moved from its part to the version, whose manifest is kept for the abort
    const refs = await Promise.all(blocks.map((b) => refsOf(h.client, b.blockId)));
    const vref = refs[0][0];
    expect(vref).toMatch(/^v:/);
    for (const r of refs) expect(r).toEqual([vref]);
    expect(await h.ms.versions.readBlocks(vref.slice(2))).toHaveLength(4);

    expect((await s3code(h.core.multipart.abort(B, 'dies/obj', up.uploadId))).code).toBe('OperationAborted');
    clock.advance(16 * 60 * 1000); // past STALE_COMPLETION_MS: the completion is presumed dead
    await h.core.multipart.abort(B, 'dies/obj', up.uploadId);

    for (const b of blocks) {
      expect(await refsOf(h.client, b.blockId)).toEqual([]);
      expect(await statusOf(b.blockId)).toBeUndefined();
    }
    expect(await h.ms.versions.readBlocks(vref.slice(2))).toEqual([]);
    expect((await s3code(h.core.objects.head(B, 'dies/obj'))).code).toBe('NoSuchKey');
    expect((await s3code(h.core.multipart.listParts({ bucket: B, key: 'dies/obj', uploadId: up.uploadId, maxParts: 10 }))).code).toBe('NoSuchUpload');
  });
});
