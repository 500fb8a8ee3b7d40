import { createHash } from 'crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCommandOutput,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checksumOf } from '@ostore/s3/protocol';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyBytes, s3Error } from './s3-test-helpers';

const MiB = 1024 * 1024;

function pattern(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 131 + seed) % 256;
  return b;
}

describe('multipart uploads through the AWS SDK v3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'mp-bucket';

  beforeAll(async () => {
    gw = await startGateway('multipart', { BLOCK_SIZE_BYTES: String(1 * MiB) });
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
  });
  afterAll(() => gw?.stop());

  it('assembles parts in order with the md5-of-md5s-N ETag', async () => {
    const parts = [pattern(5 * MiB, 1), pattern(5 * MiB, 2), pattern(1234, 3)];
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'mp/object', ContentType: 'application/x-test', Metadata: { m: '1' } }));
    const etags = [];
    for (let i = 0; i < parts.length; i++) {
      const r = await s3.send(new UploadPartCommand({ Bucket, Key: 'mp/object', UploadId, PartNumber: i + 1, Body: parts[i] }));
      expect(r.ETag).toBe(`"${createHash('md5').update(parts[i]).digest('hex')}"`);
      etags.push(r.ETag!);
    }
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: 'mp/object', UploadId, MaxParts: 2 }));
    expect(listed.Parts?.map((p) => p.PartNumber)).toEqual([1, 2]);
    expect(listed.IsTruncated).toBe(true);
    const rest = await s3.send(new ListPartsCommand({ Bucket, Key: 'mp/object', UploadId, PartNumberMarker: listed.NextPartNumberMarker }));
    expect(rest.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[3, 1234]]);
    const done = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket, Key: 'mp/object', UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }),
    );
    const md5s = Buffer.concat(parts.map((p) => createHash('md5').update(p).digest()));
    expect(done.ETag).toBe(`"${createHash('md5').update(md5s).digest('hex')}-3"`);
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'mp/object' }));
    expect(got.ContentType).toBe('application/x-test');
    expect(got.Metadata).toEqual({ m: '1' });
    expect((await bodyBytes(got.Body)).equals(Buffer.concat(parts))).toBe(true);
    const part2 = await s3.send(new GetObjectCommand({ Bucket, Key: 'mp/object', PartNumber: 2 }));
    expect(part2.PartsCount).toBe(3);
    expect((await bodyBytes(part2.Body)).equals(parts[1])).toBe(true);
    // a part the object does not have: 416 InvalidPartNumber, as S3 answers
    const beyond = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'mp/object', PartNumber: 4 })));
    expect(beyond.name).toBe('InvalidPartNumber');
    expect(beyond.$metadata.httpStatusCode).toBe(416);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket }));
    expect(uploads.Uploads ?? []).toEqual([]);
  });

  it('rejects small parts, wrong order, unknown parts and unknown uploads', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'mp/bad' }));
    const p1 = await s3.send(new UploadPartCommand({ Bucket, Key: 'mp/bad', UploadId, PartNumber: 1, Body: pattern(1024, 1) }));
    const p2 = await s3.send(new UploadPartCommand({ Bucket, Key: 'mp/bad', UploadId, PartNumber: 2, Body: pattern(1024, 2) }));
    const small = await s3Error(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'mp/bad', UploadId, MultipartUpload: { Parts: [{ ETag: p1.ETag, PartNumber: 1 }, { ETag: p2.ETag, PartNumber: 2 }] } })),
    );
    expect(small.name).toBe('EntityTooSmall');
    const order = await s3Error(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'mp/bad', UploadId, MultipartUpload: { Parts: [{ ETag: p2.ETag, PartNumber: 2 }, { ETag: p1.ETag, PartNumber: 1 }] } })),
    );
    expect(order.name).toBe('InvalidPartOrder');
    const unknown = await s3Error(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'mp/bad', UploadId, MultipartUpload: { Parts: [{ ETag: '"ffffffffffffffffffffffffffffffff"', PartNumber: 1 }] } })),
    );
    expect(unknown.name).toBe('InvalidPart');
    const badNumber = await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'mp/bad', UploadId, PartNumber: 10001, Body: 'x' })));
    expect(badNumber.name).toBe('InvalidArgument');
    await s3.send(new AbortMultipartUploadCommand({ Bucket, Key: 'mp/bad', UploadId }));
    const aborted = await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'mp/bad', UploadId, PartNumber: 3, Body: 'x' })));
    expect(aborted.name).toBe('NoSuchUpload');
    expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'mp/bad' })))).$metadata.httpStatusCode).toBe(404);
  });

  it('completes conditionally with If-None-Match: * and If-Match, like PutObject', async () => {
    const Key = 'mp/conditional';
    const start = async (body: string, key = Key) => {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: key }));
      const p = await s3.send(new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber: 1, Body: body }));
      return { UploadId: UploadId!, MultipartUpload: { Parts: [{ ETag: p.ETag, PartNumber: 1 }] } };
    };
    const first = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, ...(await start('one')), IfNoneMatch: '*' }));

    const second = await start('two');
    const exists = await s3Error(s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, ...second, IfNoneMatch: '*' })));
    expect(exists.name).toBe('PreconditionFailed');
    expect(exists.$metadata.httpStatusCode).toBe(412);
    const stale = await s3Error(s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, ...second, IfMatch: '"0123456789abcdef0123456789abcdef"' })));
    expect(stale.name).toBe('PreconditionFailed');
    const etagValue = await s3Error(s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, ...second, IfNoneMatch: first.ETag })));
    expect(etagValue.name).toBe('NotImplemented');
    // the refused upload is intact and still completes when its condition holds
    expect(await bodyBytes((await s3.send(new GetObjectCommand({ Bucket, Key }))).Body)).toEqual(Buffer.from('one'));
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, ...second, IfMatch: first.ETag }));
    expect(await bodyBytes((await s3.send(new GetObjectCommand({ Bucket, Key }))).Body)).toEqual(Buffer.from('two'));

    const missing = await s3Error(
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'mp/never', ...(await start('x', 'mp/never')), IfMatch: '*' })),
    );
    expect(missing.name).toBe('NoSuchKey');
  });

  it('checks the object checksum sent with CompleteMultipartUpload against its parts (BadDigest)', async () => {
    const Key = 'mp/checksummed';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key, ChecksumAlgorithm: 'SHA256' }));
    const body = pattern(1024, 5);
    const sha = createHash('sha256').update(body).digest('base64');
    const p = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: body, ChecksumSHA256: sha }));
    const Parts = [{ ETag: p.ETag, PartNumber: 1, ChecksumSHA256: p.ChecksumSHA256 }];
    const composite = `${createHash('sha256').update(Buffer.from(sha, 'base64')).digest('base64')}-1`;
    const bad = await s3Error(s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts }, ChecksumSHA256: sha })));
    expect(bad.name).toBe('BadDigest');
    expect(bad.$metadata.httpStatusCode).toBe(400);
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts }, ChecksumSHA256: composite }));
    expect(done.ChecksumSHA256).toBe(composite);

    // a FULL_OBJECT CRC (chosen at create, as current SDKs and the CLI do) is the CRC of the whole body
    const crcKey = 'mp/full-object-crc';
    const crcUpload = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: crcKey, ChecksumAlgorithm: 'CRC32', ChecksumType: 'FULL_OBJECT' }));
    const parts = [pattern(5 * MiB, 6), pattern(1024, 7)];
    const uploaded: UploadPartCommandOutput[] = [];
    for (const [i, Body] of parts.entries())
      uploaded.push(await s3.send(new UploadPartCommand({ Bucket, Key: crcKey, UploadId: crcUpload.UploadId, PartNumber: i + 1, Body, ChecksumAlgorithm: 'CRC32' })));
    const complete = (ChecksumCRC32: string) =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: crcKey,
          UploadId: crcUpload.UploadId,
          ChecksumCRC32,
          MultipartUpload: { Parts: uploaded.map((u, i) => ({ ETag: u.ETag, PartNumber: i + 1, ChecksumCRC32: u.ChecksumCRC32 })) },
        }),
      );
    expect((await s3Error(complete('AAAAAA=='))).name).toBe('BadDigest');
    const whole = checksumOf('CRC32', Buffer.concat(parts));
    expect((await complete(whole)).ChecksumCRC32).toBe(whole);
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: crcKey }))).ContentLength).toBe(5 * MiB + 1024);
  });

  it('GetObjectAttributes reports size, ETag, storage class, checksums and the parts of a multipart object', async () => {
    const simple = await s3.send(new PutObjectCommand({ Bucket, Key: 'attr/simple', Body: 'hello' }));
    const all = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
    const a = await s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'attr/simple', ObjectAttributes: [...all] }));
    expect(a).toMatchObject({ ETag: simple.ETag!.replace(/"/g, ''), ObjectSize: 5, StorageClass: 'STANDARD' });
    expect(a.Checksum?.ChecksumCRC32).toBe(simple.ChecksumCRC32);
    expect(a.ObjectParts).toBeUndefined();
    const sizeOnly = await s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'attr/simple', ObjectAttributes: ['ObjectSize'] }));
    expect(sizeOnly.ObjectSize).toBe(5);
    expect(sizeOnly.ETag).toBeUndefined();

    const Key = 'attr/multipart';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const bodies = [pattern(5 * MiB, 1), pattern(5 * MiB, 2), pattern(1000, 3)];
    const Parts = [];
    for (const [i, Body] of bodies.entries())
      Parts.push({ ETag: (await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: i + 1, Body }))).ETag, PartNumber: i + 1 });
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }));
    const m = await s3.send(new GetObjectAttributesCommand({ Bucket, Key, ObjectAttributes: [...all] }));
    expect(m).toMatchObject({ ETag: done.ETag!.replace(/"/g, ''), ObjectSize: 10 * MiB + 1000 });
    expect(m.ObjectParts).toMatchObject({ TotalPartsCount: 3, IsTruncated: false });
    expect(m.ObjectParts!.Parts!.map((p) => [p.PartNumber, p.Size])).toEqual([[1, 5 * MiB], [2, 5 * MiB], [3, 1000]]);
    const page = await s3.send(new GetObjectAttributesCommand({ Bucket, Key, ObjectAttributes: ['ObjectParts'], MaxParts: 1, PartNumberMarker: '1' }));
    expect(page.ObjectParts).toMatchObject({ IsTruncated: true, NextPartNumberMarker: '2' });
    expect(page.ObjectParts!.Parts!.map((p) => p.PartNumber)).toEqual([2]);
    const missing = await s3Error(s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'attr/none', ObjectAttributes: ['ETag'] })));
    expect(missing.name).toBe('NoSuchKey');
  });

  it('copies ranges of an object into parts', async () => {
    const source = pattern(6 * MiB, 9);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'mp/source', Body: source }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'mp/copied' }));
    const a = await s3.send(new UploadPartCopyCommand({ Bucket, Key: 'mp/copied', UploadId, PartNumber: 1, CopySource: `${Bucket}/mp/source`, CopySourceRange: `bytes=0-${5 * MiB - 1}` }));
    const b = await s3.send(new UploadPartCopyCommand({ Bucket, Key: 'mp/copied', UploadId, PartNumber: 2, CopySource: `${Bucket}/mp/source`, CopySourceRange: `bytes=${5 * MiB}-${6 * MiB - 1}` }));
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: 'mp/copied',
        UploadId,
        MultipartUpload: { Parts: [{ ETag: a.CopyPartResult!.ETag, PartNumber: 1 }, { ETag: b.CopyPartResult!.ETag, PartNumber: 2 }] },
      }),
    );
    expect((await bodyBytes((await s3.send(new GetObjectCommand({ Bucket, Key: 'mp/copied' }))).Body)).equals(source)).toBe(true);
  });

  it('lists uploads with prefix, delimiter and pagination', async () => {
    const keys = ['up/a', 'up/b', 'up/dir/c', 'up/dir/d', 'up/e'];
    const ids: Record<string, string> = {};
    for (const Key of keys) ids[Key] = (await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId!;
    const grouped = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: 'up/', Delimiter: '/' }));
    expect(grouped.Uploads?.map((u) => u.Key)).toEqual(['up/a', 'up/b', 'up/e']);
    expect(grouped.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['up/dir/']);
    const seen: string[] = [];
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: 'up/', MaxUploads: 2, KeyMarker, UploadIdMarker }));
      seen.push(...(r.Uploads ?? []).map((u) => u.Key!));
      if (!r.IsTruncated) break;
      KeyMarker = r.NextKeyMarker;
      UploadIdMarker = r.NextUploadIdMarker;
    }
    expect(seen).toEqual(keys);
    for (const Key of keys) await s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: ids[Key] }));
  });

  it('uploads a large body with lib-storage (parallel parts, SDK checksums)', async () => {
    const body = pattern(17 * MiB + 5, 4);
    await new Upload({ client: s3, params: { Bucket, Key: 'mp/lib-storage', Body: body }, partSize: 5 * MiB, queueSize: 3 }).done();
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'mp/lib-storage' }));
    expect(head.ContentLength).toBe(body.length);
    expect(head.ETag).toMatch(/-4"$/);
    expect((await bodyBytes((await s3.send(new GetObjectCommand({ Bucket, Key: 'mp/lib-storage' }))).Body)).equals(body)).toBe(true);
  });
});
