import { createHash } from 'crypto';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  DeleteObjectTaggingCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyBytes, bodyText, s3Error } from './s3-test-helpers';

describe.each(['fs', 'cassandra'])('objects through the AWS SDK v3 (default settings: checksums, aws-chunked trailers), %s block store', (store) => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'objects-bucket';

  beforeAll(async () => {
    gw = await startGateway(`objects${store}`, { BLOCK_SIZE_BYTES: String(64 * 1024), BLOCK_STORE: store });
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
  });
  afterAll(() => gw?.stop());

  it('round-trips a body with metadata and standard headers', async () => {
    const put = await s3.send(
      new PutObjectCommand({
        Bucket,
        Key: 'docs/hello.txt',
        Body: 'hello, world',
        ContentType: 'text/plain; charset=utf-8',
        CacheControl: 'max-age=60',
        ContentDisposition: 'attachment; filename="hello.txt"',
        ContentEncoding: 'identity',
        ContentLanguage: 'en',
        Expires: new Date('2030-01-01T00:00:00Z'),
        Metadata: { owner: 'alice', purpose: 'test' },
      }),
    );
    expect(put.ETag).toBe(`"${createHash('md5').update('hello, world').digest('hex')}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'docs/hello.txt' }));
    expect(await bodyText(got.Body)).toBe('hello, world');
    expect(got.ContentType).toBe('text/plain; charset=utf-8');
    expect(got.CacheControl).toBe('max-age=60');
    expect(got.ContentDisposition).toBe('attachment; filename="hello.txt"');
    expect(got.ContentLanguage).toBe('en');
    expect(got.Metadata).toEqual({ owner: 'alice', purpose: 'test' });
    expect(got.ContentLength).toBe(12);
    expect(got.ETag).toBe(put.ETag);
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'docs/hello.txt' }));
    expect(head.ContentLength).toBe(12);
    expect(head.LastModified).toBeInstanceOf(Date);
  });

  it('stores and returns the SDK checksum, and rejects a wrong one storing nothing', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'sum/crc32c', Body: 'checksummed', ChecksumAlgorithm: 'CRC32C' }));
    expect(put.ChecksumCRC32C).toBeDefined();
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'sum/crc32c', ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC32C).toBe(put.ChecksumCRC32C);
    for (const alg of ['CRC32', 'SHA1', 'SHA256'] as const) {
      const r = await s3.send(new PutObjectCommand({ Bucket, Key: `sum/${alg}`, Body: 'abc', ChecksumAlgorithm: alg }));
      expect(r[`Checksum${alg}`]).toBeDefined();
    }
    const bad = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'sum/bad', Body: 'abc', ChecksumSHA256: createHash('sha256').update('xyz').digest('base64') })));
    expect(bad.name).toBe('BadDigest');
    expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'sum/bad' })))).$metadata.httpStatusCode).toBe(404);
  });

  it('rejects a wrong Content-MD5 with BadDigest and keeps the previous version', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'md5/k', Body: 'original' }));
    const err = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'md5/k', Body: 'replacement', ContentMD5: createHash('md5').update('other').digest('base64') })));
    expect(err.name).toBe('BadDigest');
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket, Key: 'md5/k' }))).Body)).toBe('original');
  });

  it('streams a multi-block body and serves ranges', async () => {
    const body = Buffer.alloc(300 * 1024 + 7);
    for (let i = 0; i < body.length; i++) body[i] = (i * 31 + 7) % 251;
    await s3.send(new PutObjectCommand({ Bucket, Key: 'big/blob.bin', Body: body }));
    const whole = await bodyBytes((await s3.send(new GetObjectCommand({ Bucket, Key: 'big/blob.bin' }))).Body);
    expect(whole.equals(body)).toBe(true);
    const ranged = await s3.send(new GetObjectCommand({ Bucket, Key: 'big/blob.bin', Range: 'bytes=65530-131080' }));
    expect(ranged.ContentRange).toBe(`bytes 65530-131080/${body.length}`);
    expect((await bodyBytes(ranged.Body)).equals(body.subarray(65530, 131081))).toBe(true);
    const suffix = await s3.send(new GetObjectCommand({ Bucket, Key: 'big/blob.bin', Range: 'bytes=-10' }));
    expect((await bodyBytes(suffix.Body)).equals(body.subarray(body.length - 10))).toBe(true);
    const bad = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'big/blob.bin', Range: `bytes=${body.length}-` })));
    expect(bad.name).toBe('InvalidRange');
    expect(bad.$metadata.httpStatusCode).toBe(416);
  });

  it('honours conditional GET and HEAD', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'cond/k', Body: 'v1' }));
    const notModified = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'cond/k', IfNoneMatch: put.ETag })));
    expect(notModified.$metadata.httpStatusCode).toBe(304);
    const failed = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'cond/k', IfMatch: '"0000"' })));
    expect(failed.$metadata.httpStatusCode).toBe(412);
    const ok = await s3.send(new GetObjectCommand({ Bucket, Key: 'cond/k', IfMatch: put.ETag, IfModifiedSince: new Date(Date.now() - 3600_000) }));
    expect(await bodyText(ok.Body)).toBe('v1');
    const later = await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'cond/k', IfModifiedSince: new Date(Date.now() + 3600_000) })));
    expect(later.$metadata.httpStatusCode).toBe(304);
    const unmodified = await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'cond/k', IfUnmodifiedSince: new Date(Date.now() - 3600_000) })));
    expect(unmodified.$metadata.httpStatusCode).toBe(412);
  });

  it('honours conditional PUT: If-None-Match * and If-Match', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'cput/k', Body: 'first', IfNoneMatch: '*' }));
    const exists = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'cput/k', Body: 'second', IfNoneMatch: '*' })));
    expect(exists.$metadata.httpStatusCode).toBe(412);
    const wrong = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'cput/k', Body: 'third', IfMatch: '"00000000000000000000000000000000"' })));
    expect(wrong.$metadata.httpStatusCode).toBe(412);
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'cput/k' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'cput/k', Body: 'fourth', IfMatch: head.ETag }));
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket, Key: 'cput/k' }))).Body)).toBe('fourth');
  });

  it('copies with COPY and REPLACE metadata, across buckets, honouring copy-source conditions', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'copy-target' }));
    const src = await s3.send(new PutObjectCommand({ Bucket, Key: 'copy/src', Body: 'copy me', ContentType: 'text/x-src', Metadata: { a: '1' } }));
    const copied = await s3.send(new CopyObjectCommand({ Bucket: 'copy-target', Key: 'dst', CopySource: `${Bucket}/copy/src` }));
    expect(copied.CopyObjectResult?.ETag).toBe(src.ETag);
    const dst = await s3.send(new GetObjectCommand({ Bucket: 'copy-target', Key: 'dst' }));
    expect(await bodyText(dst.Body)).toBe('copy me');
    expect(dst.ContentType).toBe('text/x-src');
    expect(dst.Metadata).toEqual({ a: '1' });
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy/replaced', CopySource: `${Bucket}/copy/src`, MetadataDirective: 'REPLACE', ContentType: 'text/x-new', Metadata: { b: '2' } }));
    const replaced = await s3.send(new HeadObjectCommand({ Bucket, Key: 'copy/replaced' }));
    expect(replaced.ContentType).toBe('text/x-new');
    expect(replaced.Metadata).toEqual({ b: '2' });
    const self = await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy/src', CopySource: `${Bucket}/copy/src` })));
    expect(self.name).toBe('InvalidRequest');
    const cond = await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy/x', CopySource: `${Bucket}/copy/src`, CopySourceIfMatch: '"nope"' })));
    expect(cond.$metadata.httpStatusCode).toBe(412);
    // the copy outlives its source: blocks are shared by reference
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'copy/src' }));
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket: 'copy-target', Key: 'dst' }))).Body)).toBe('copy me');
  });

  it('keeps object tags from x-amz-tagging and the tagging API', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'tags/k', Body: 't', Tagging: 'project=ostore&tier=hot' }));
    const tags = await s3.send(new GetObjectTaggingCommand({ Bucket, Key: 'tags/k' }));
    expect(Object.fromEntries(tags.TagSet!.map((t) => [t.Key, t.Value]))).toEqual({ project: 'ostore', tier: 'hot' });
    // listed by key, as S3 lists them, whatever order the PUT gave (ceph s3-tests test_put_obj_with_tags)
    await s3.send(new PutObjectCommand({ Bucket, Key: 'tags/order', Body: 'A'.repeat(100), Tagging: 'foo=bar&bar' }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket, Key: 'tags/order' }))).TagSet).toEqual([
      { Key: 'bar', Value: '' },
      { Key: 'foo', Value: 'bar' },
    ]);
    await s3.send(new PutObjectTaggingCommand({ Bucket, Key: 'tags/order', Tagging: { TagSet: [{ Key: 'z', Value: '1' }, { Key: 'a', Value: '2' }] } }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket, Key: 'tags/order' }))).TagSet!.map((t) => t.Key)).toEqual(['a', 'z']);
    await s3.send(new PutObjectTaggingCommand({ Bucket, Key: 'tags/k', Tagging: { TagSet: [{ Key: 'only', Value: 'one' }] } }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket, Key: 'tags/k' }))).TagSet).toEqual([{ Key: 'only', Value: 'one' }]);
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'tags/k' }))).$metadata.httpStatusCode).toBe(200);
    await s3.send(new DeleteObjectTaggingCommand({ Bucket, Key: 'tags/k' }));
    expect((await s3.send(new GetObjectTaggingCommand({ Bucket, Key: 'tags/k' }))).TagSet).toEqual([]);
    const tooMany = await s3Error(
      s3.send(new PutObjectTaggingCommand({ Bucket, Key: 'tags/k', Tagging: { TagSet: Array.from({ length: 11 }, (_, i) => ({ Key: `k${i}`, Value: 'v' })) } })),
    );
    expect(tooMany.name).toBe('BadRequest' === tooMany.name ? 'BadRequest' : 'InvalidTag');
  });

  it('deletes many keys at once, verbose and quiet', async () => {
    const keys = Array.from({ length: 25 }, (_, i) => `bulk/${String(i).padStart(3, '0')}`);
    await Promise.all(keys.map((Key) => s3.send(new PutObjectCommand({ Bucket, Key, Body: Key }))));
    const verbose = await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.slice(0, 10).map((Key) => ({ Key })) } }));
    expect(verbose.Deleted?.map((d) => d.Key).sort()).toEqual(keys.slice(0, 10));
    const quiet = await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Quiet: true, Objects: [...keys.slice(10), 'bulk/missing'].map((Key) => ({ Key })) } }));
    expect(quiet.Deleted ?? []).toEqual([]);
    expect(quiet.Errors ?? []).toEqual([]);
    for (const Key of keys) expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key })))).$metadata.httpStatusCode).toBe(404);
  });

  it('serves presigned GET and PUT URLs and rejects expired or tampered ones', async () => {
    const putUrl = await getSignedUrl(s3, new PutObjectCommand({ Bucket, Key: 'presigned/k' }), { expiresIn: 60 });
    expect((await fetch(putUrl, { method: 'PUT', body: 'via presigned' })).status).toBe(200);
    const getUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key: 'presigned/k' }), { expiresIn: 60 });
    const got = await fetch(getUrl);
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('via presigned');
    const tampered = await fetch(getUrl.replace('presigned%2Fk', 'presigned%2Fx').replace('presigned/k', 'presigned/x'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toContain('<Code>SignatureDoesNotMatch</Code>');
    const expiredUrl = await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key: 'presigned/k' }), { expiresIn: 1, signingDate: new Date(Date.now() - 60_000) });
    const expired = await fetch(expiredUrl);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('answers X-Amz-Expires 0 as an expired URL (403) and a negative or over-a-week one as AuthorizationQueryParametersError (400)', async () => {
    const presign = (expiresIn: number) => getSignedUrl(s3, new GetObjectCommand({ Bucket, Key: 'presigned/k' }), { expiresIn });
    const zero = await fetch(await presign(0));
    expect(zero.status).toBe(403);
    expect(await zero.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
    const negative = await fetch(await presign(-7));
    expect(negative.status).toBe(400);
    expect(await negative.text()).toMatch(/<Code>AuthorizationQueryParametersError<\/Code><Message>X-Amz-Expires must be non-negative/);
    // the SDK refuses to sign more than a week, so the parameter is raised after signing (it is checked before the signature)
    const tooLong = await fetch((await presign(60)).replace('X-Amz-Expires=60', 'X-Amz-Expires=604801'));
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toMatch(/<Code>AuthorizationQueryParametersError<\/Code><Message>X-Amz-Expires must be less than a week/);
    const expiredPut = await getSignedUrl(s3, new PutObjectCommand({ Bucket, Key: 'presigned/late' }), { expiresIn: 1, signingDate: new Date(Date.now() - 60_000) });
    const late = await fetch(expiredPut, { method: 'PUT', body: 'too late' });
    expect(late.status).toBe(403);
    expect(await late.text()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);
  });

  it('answers NoSuchKey for a missing key and 204 for deleting one', async () => {
    const err = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'never/written' })));
    expect(err.name).toBe('NoSuchKey');
    expect(err.$metadata.httpStatusCode).toBe(404);
    expect((await s3.send(new DeleteObjectCommand({ Bucket, Key: 'never/written' }))).$metadata.httpStatusCode).toBe(204);
  });
});
