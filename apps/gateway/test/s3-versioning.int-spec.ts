import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  UploadPartCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText, s3Error } from './s3-test-helpers';

describe('versioning through the AWS SDK v3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;

  beforeAll(async () => {
    gw = await startGateway('versioning');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket: 'vb-bucket' }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: 'vb-bucket', VersioningConfiguration: { Status: 'Enabled' } }));
  });
  afterAll(() => gw?.stop());

  it('keeps every version, newest current, each readable by id', async () => {
    const ids: string[] = [];
    for (const body of ['one', 'two', 'three']) ids.push((await s3.send(new PutObjectCommand({ Bucket: 'vb-bucket', Key: 'doc', Body: body }))).VersionId!);
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => id && id !== 'null')).toBe(true);
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket: 'vb-bucket', Key: 'doc' }))).Body)).toBe('three');
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket: 'vb-bucket', Key: 'doc', VersionId: ids[0] }))).Body)).toBe('one');
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'vb-bucket', Prefix: 'doc' }));
    expect(versions.Versions?.map((v) => v.VersionId)).toEqual([...ids].reverse());
    expect(versions.Versions?.map((v) => v.IsLatest)).toEqual([true, false, false]);
  });

  it('adds a delete marker on delete; GET then answers NoSuchKey; deleting the marker restores the object', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'vb-bucket', Key: 'marked', Body: 'alive' }));
    const del = await s3.send(new DeleteObjectCommand({ Bucket: 'vb-bucket', Key: 'marked' }));
    expect(del.DeleteMarker).toBe(true);
    const err = await s3Error(s3.send(new GetObjectCommand({ Bucket: 'vb-bucket', Key: 'marked' })));
    expect(err.name).toBe('NoSuchKey');
    expect(err.$response?.headers['x-amz-delete-marker']).toBe('true');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'vb-bucket', Prefix: 'marked' }));
    expect(listed.KeyCount).toBe(0);
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'vb-bucket', Prefix: 'marked' }));
    expect(versions.DeleteMarkers?.map((m) => [m.VersionId, m.IsLatest])).toEqual([[del.VersionId, true]]);
    const byId = await s3Error(s3.send(new HeadObjectCommand({ Bucket: 'vb-bucket', Key: 'marked', VersionId: del.VersionId })));
    expect(byId.$metadata.httpStatusCode).toBe(405);
    await s3.send(new DeleteObjectCommand({ Bucket: 'vb-bucket', Key: 'marked', VersionId: del.VersionId }));
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket: 'vb-bucket', Key: 'marked' }))).Body)).toBe('alive');
  });

  it('permanently deletes a version by id; the next newest becomes current', async () => {
    const a = await s3.send(new PutObjectCommand({ Bucket: 'vb-bucket', Key: 'perm', Body: 'a' }));
    const b = await s3.send(new PutObjectCommand({ Bucket: 'vb-bucket', Key: 'perm', Body: 'b' }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'vb-bucket', Key: 'perm', VersionId: b.VersionId }));
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket: 'vb-bucket', Key: 'perm' }))).Body)).toBe('a');
    const gone = await s3Error(s3.send(new GetObjectCommand({ Bucket: 'vb-bucket', Key: 'perm', VersionId: b.VersionId })));
    expect(gone.name).toBe('NoSuchVersion');
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'vb-bucket', Prefix: 'perm' }));
    expect(versions.Versions?.map((v) => [v.VersionId, v.IsLatest])).toEqual([[a.VersionId, true]]);
  });

  it('writes the null version while suspended, replacing an earlier null version', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'sb-bucket' }));
    const nullV1 = await s3.send(new PutObjectCommand({ Bucket: 'sb-bucket', Key: 'k', Body: 'unversioned' }));
    expect(nullV1.VersionId).toBeUndefined();
    await s3.send(new PutBucketVersioningCommand({ Bucket: 'sb-bucket', VersioningConfiguration: { Status: 'Enabled' } }));
    const v = await s3.send(new PutObjectCommand({ Bucket: 'sb-bucket', Key: 'k', Body: 'versioned' }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: 'sb-bucket', VersioningConfiguration: { Status: 'Suspended' } }));
    // A write while suspended makes the null version and, as AWS's PutObject "versioning suspended"
    // example shows, answers without x-amz-version-id; listings and reads still call it "null".
    const nullV2 = await s3.send(new PutObjectCommand({ Bucket: 'sb-bucket', Key: 'k', Body: 'suspended' }));
    expect(nullV2.VersionId).toBeUndefined();
    const copied = await s3.send(new CopyObjectCommand({ Bucket: 'sb-bucket', Key: 'copied', CopySource: 'sb-bucket/k' }));
    expect(copied.VersionId).toBeUndefined();
    const upload = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'sb-bucket', Key: 'multi' }));
    const part = await s3.send(new UploadPartCommand({ Bucket: 'sb-bucket', Key: 'multi', UploadId: upload.UploadId, PartNumber: 1, Body: 'one part' }));
    const completed = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: 'sb-bucket', Key: 'multi', UploadId: upload.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }),
    );
    expect(completed.VersionId).toBeUndefined();
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'sb-bucket', Key: 'multi' }))).VersionId).toBe('null');
    const versions = await s3.send(new ListObjectVersionsCommand({ Bucket: 'sb-bucket', Prefix: 'k' }));
    expect(versions.Versions?.map((x) => [x.VersionId, x.IsLatest])).toEqual([
      ['null', true],
      [v.VersionId, false],
    ]);
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket: 'sb-bucket', Key: 'k', VersionId: 'null' }))).Body)).toBe('suspended');
    const del = await s3.send(new DeleteObjectCommand({ Bucket: 'sb-bucket', Key: 'k' }));
    expect(del.DeleteMarker).toBe(true);
    expect(del.VersionId).toBe('null');
    const after = await s3.send(new ListObjectVersionsCommand({ Bucket: 'sb-bucket', Prefix: 'k' }));
    expect(after.DeleteMarkers?.map((m) => m.VersionId)).toEqual(['null']);
    expect(after.Versions?.map((x) => x.VersionId)).toEqual([v.VersionId]);
  });

  it('pages version lists with key-marker and version-id-marker', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'pb-bucket' }));
    await s3.send(new PutBucketVersioningCommand({ Bucket: 'pb-bucket', VersioningConfiguration: { Status: 'Enabled' } }));
    const expected: [string, string][] = [];
    for (const key of ['a', 'b/c', 'b/d', 'e']) {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push((await s3.send(new PutObjectCommand({ Bucket: 'pb-bucket', Key: key, Body: `${key}${i}` }))).VersionId!);
      for (const id of ids.reverse()) expected.push([key, id]);
    }
    const seen: [string, string][] = [];
    let keyMarker: string | undefined;
    let versionIdMarker: string | undefined;
    for (let page = 0; page < 20; page++) {
      const r = await s3.send(new ListObjectVersionsCommand({ Bucket: 'pb-bucket', MaxKeys: 5, KeyMarker: keyMarker, VersionIdMarker: versionIdMarker }));
      for (const v of r.Versions ?? []) seen.push([v.Key!, v.VersionId!]);
      if (!r.IsTruncated) break;
      keyMarker = r.NextKeyMarker;
      versionIdMarker = r.NextVersionIdMarker;
    }
    expect(seen).toEqual(expected);
    const grouped = await s3.send(new ListObjectVersionsCommand({ Bucket: 'pb-bucket', Delimiter: '/' }));
    expect(grouped.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['b/']);
    expect([...new Set(grouped.Versions?.map((v) => v.Key))]).toEqual(['a', 'e']);
  });
});
