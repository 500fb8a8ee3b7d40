import { randomBytes } from 'crypto';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway, waitFor } from '@ostore/testing';
import { bodyBytes, bodyText, countFiles, s3Error } from './s3-test-helpers';

const KiB = 1024;

/** The HTTP status and S3 code a request fails with. */
async function failure(p: Promise<unknown>): Promise<[number | undefined, string]> {
  const e = await s3Error(p);
  return [e.$metadata.httpStatusCode, e.name];
}

describe('conditional writes (If-Match / If-None-Match) on PutObject, CopyObject and CompleteMultipartUpload through the AWS SDK v3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'cond-plain';
  const Versioned = 'cond-versioned';

  beforeAll(async () => {
    gw = await startGateway('condwrites', { BLOCK_SIZE_BYTES: String(64 * KiB), BLOCK_GC_INTERVAL_SECONDS: '1', BLOCK_GC_GRACE_SECONDS: '2' });
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new CreateBucketCommand({ Bucket: Versioned }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: Versioned, VersioningConfiguration: { Status: 'Enabled' } }));
  });
  afterAll(() => gw?.stop());

  const text = async (B: string, Key: string) => bodyText((await s3.send(new GetObjectCommand({ Bucket: B, Key }))).Body);
  const versionsOf = async (B: string, Key: string) => {
    const r = await s3.send(new ListObjectVersionsCommand({ Bucket: B, Prefix: Key }));
    return { versions: (r.Versions ?? []).filter((v) => v.Key === Key), markers: (r.DeleteMarkers ?? []).filter((m) => m.Key === Key) };
  };

  it('If-Match writes only over the current ETag: match, mismatch (412), * (any object), missing key (404 NoSuchKey)', async () => {
    const first = await s3.send(new PutObjectCommand({ Bucket, Key: 'm/k', Body: 'one' }));
    const second = await s3.send(new PutObjectCommand({ Bucket, Key: 'm/k', Body: 'two', IfMatch: first.ETag }));
    expect(await text(Bucket, 'm/k')).toBe('two');
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'm/k', Body: 'stale', IfMatch: first.ETag })))).toEqual([412, 'PreconditionFailed']);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'm/k', Body: 'bad', IfMatch: 'badetag' })))).toEqual([412, 'PreconditionFailed']);
    expect(await text(Bucket, 'm/k')).toBe('two');
    // an unquoted ETag matches as the quoted one does
    await s3.send(new PutObjectCommand({ Bucket, Key: 'm/k', Body: 'three', IfMatch: second.ETag!.replace(/"/g, '') }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'm/k', Body: 'four', IfMatch: '*' }));
    expect(await text(Bucket, 'm/k')).toBe('four');
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'm/none', Body: 'x', IfMatch: first.ETag })))).toEqual([404, 'NoSuchKey']);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'm/none', Body: 'x', IfMatch: '*' })))).toEqual([404, 'NoSuchKey']);
    expect(await failure(s3.send(new GetObjectCommand({ Bucket, Key: 'm/none' })))).toEqual([404, 'NoSuchKey']);
  });

  it('If-None-Match takes only * (an ETag value is 501 NotImplemented, as S3 answers) and refuses an existing key', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'n/k', Body: 'first', IfNoneMatch: '*' }));
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'n/k', Body: 'again', IfNoneMatch: '*' })))).toEqual([412, 'PreconditionFailed']);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'n/k', Body: 'etag', IfNoneMatch: put.ETag })))).toEqual([501, 'NotImplemented']);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket, Key: 'n/other', Body: 'etag', IfNoneMatch: 'badetag' })))).toEqual([501, 'NotImplemented']);
    expect(await text(Bucket, 'n/k')).toBe('first');
  });

  it('in a versioned bucket, If-Match is checked against the current version only and a refused write adds no version', async () => {
    const v1 = await s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'v/k', Body: 'v1' }));
    const v2 = await s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'v/k', Body: 'v2', IfMatch: v1.ETag }));
    expect(v2.VersionId).toBeDefined();
    expect(v2.VersionId).not.toBe(v1.VersionId);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'v/k', Body: 'v3', IfMatch: v1.ETag })))).toEqual([412, 'PreconditionFailed']);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'v/k', Body: 'v3', IfNoneMatch: '*' })))).toEqual([412, 'PreconditionFailed']);
    expect((await versionsOf(Versioned, 'v/k')).versions.map((v) => v.VersionId).sort()).toEqual([v1.VersionId, v2.VersionId].sort());
    await s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'v/k', Body: 'v3', IfMatch: v2.ETag }));
    expect(await text(Versioned, 'v/k')).toBe('v3');
    expect((await versionsOf(Versioned, 'v/k')).versions).toHaveLength(3);
  });

  it('a delete marker as the current version is no object: If-Match gets 404 NoSuchKey, If-None-Match: * writes', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'dm/k', Body: 'before' }));
    const del = await s3.send(new DeleteObjectCommand({ Bucket: Versioned, Key: 'dm/k' }));
    expect(del.DeleteMarker).toBe(true);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'dm/k', Body: 'x', IfMatch: put.ETag })))).toEqual([404, 'NoSuchKey']);
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'dm/k', Body: 'x', IfMatch: '*' })))).toEqual([404, 'NoSuchKey']);
    expect((await versionsOf(Versioned, 'dm/k')).versions).toHaveLength(1);
    await s3.send(new PutObjectCommand({ Bucket: Versioned, Key: 'dm/k', Body: 'after', IfNoneMatch: '*' }));
    expect(await text(Versioned, 'dm/k')).toBe('after');
    const after = await versionsOf(Versioned, 'dm/k');
    expect([after.versions.length, after.markers.length]).toEqual([2, 1]);
  });

  it('CopyObject honours If-None-Match / If-Match on its destination, beside the x-amz-copy-source-if-* of its source', async () => {
    await s3.send(new PutObjectCommand({ Bucket, Key: 'c/src', Body: 'source' }));
    const dst = await s3.send(new PutObjectCommand({ Bucket, Key: 'c/dst', Body: 'destination' }));
    const CopySource = `${Bucket}/c/src`;
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket, Key: 'c/dst', CopySource, IfNoneMatch: '*' })))).toEqual([412, 'PreconditionFailed']);
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket, Key: 'c/dst', CopySource, IfMatch: '"0123456789abcdef0123456789abcdef"' })))).toEqual([
      412,
      'PreconditionFailed',
    ]);
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket, Key: 'c/missing', CopySource, IfMatch: '*' })))).toEqual([404, 'NoSuchKey']);
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket, Key: 'c/dst', CopySource, IfNoneMatch: dst.ETag })))).toEqual([501, 'NotImplemented']);
    expect(await text(Bucket, 'c/dst')).toBe('destination');
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'c/dst', CopySource, IfMatch: dst.ETag }));
    expect(await text(Bucket, 'c/dst')).toBe('source');
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'c/new', CopySource, IfNoneMatch: '*' }));
    expect(await text(Bucket, 'c/new')).toBe('source');
  });

  it('N concurrent If-Match PUTs with the same ETag: exactly one wins, the others get 412/409, and their bodies are not kept', async () => {
    const Key = 'race/k';
    const body = () => randomBytes(200 * KiB);
    const before = countFiles(gw.blockDir);
    const original = await s3.send(new PutObjectCommand({ Bucket: Versioned, Key, Body: body() }));
    const afterOriginal = countFiles(gw.blockDir);
    const blocksPerObject = afterOriginal - before;
    expect(blocksPerObject).toBeGreaterThan(1);
    const bodies = Array.from({ length: 6 }, body);
    const results = await Promise.allSettled(bodies.map((Body) => s3.send(new PutObjectCommand({ Bucket: Versioned, Key, Body, IfMatch: original.ETag }))));
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ i, etag: r.value.ETag }] : []));
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect([[412, 'PreconditionFailed'], [409, 'ConditionalRequestConflict']]).toContainEqual([r.reason.$metadata.httpStatusCode, r.reason.name]);
    // the winner is the current version, whole; the losers left no version
    const got = await s3.send(new GetObjectCommand({ Bucket: Versioned, Key }));
    expect(got.ETag).toBe(won[0].etag);
    expect((await bodyBytes(got.Body)).equals(bodies[won[0].i])).toBe(true);
    expect((await versionsOf(Versioned, Key)).versions).toHaveLength(2);
    // a loser's stored body is released: only the two versions' blocks remain on disk
    await waitFor('the losers\' blocks released', async () => (countFiles(gw.blockDir) === afterOriginal + blocksPerObject ? true : undefined), 30000);
  });

  it('N concurrent If-Match CompleteMultipartUploads over the same ETag: exactly one object becomes current', async () => {
    const Key = 'race/mp';
    const original = await s3.send(new PutObjectCommand({ Bucket: Versioned, Key, Body: 'original' }));
    const uploads = [];
    for (let i = 0; i < 4; i++) {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: Versioned, Key }));
      const part = await s3.send(new UploadPartCommand({ Bucket: Versioned, Key, UploadId, PartNumber: 1, Body: `part ${i}` }));
      uploads.push({ UploadId, MultipartUpload: { Parts: [{ ETag: part.ETag, PartNumber: 1 }] } });
    }
    const results = await Promise.allSettled(
      uploads.map((u) => s3.send(new CompleteMultipartUploadCommand({ Bucket: Versioned, Key, ...u, IfMatch: original.ETag }))),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect([[412, 'PreconditionFailed'], [409, 'ConditionalRequestConflict']]).toContainEqual([r.reason.$metadata.httpStatusCode, r.reason.name]);
    expect(await text(Versioned, Key)).toBe(`part ${won[0]}`);
    expect((await versionsOf(Versioned, Key)).versions).toHaveLength(2);
  });
});
