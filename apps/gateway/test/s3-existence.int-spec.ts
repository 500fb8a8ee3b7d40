import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
  CreateMultipartUploadCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { createUser, s3Error } from './s3-test-helpers';

/**
 * A caller who may not list a private bucket learns nothing about which keys exist in it: every
 * read of a key answers 403 AccessDenied whether the key exists, never existed, or is a delete
 * marker (no 404, no 405 with the marker's headers). The owner still gets the true answers.
 */
describe('no existence leak to callers who may not list the bucket', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;
  let other: S3Client;
  const Bucket = 'vault';
  let markerVersionId: string;

  beforeAll(async () => {
    gw = await startGateway('existence');
    owner = gw.client();
    other = gw.client(await createUser(gw, 'eve', 'Eve'));
    await owner.send(new CreateBucketCommand({ Bucket }));
    await owner.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    await owner.send(new PutObjectCommand({ Bucket, Key: 'exists', Body: 'hidden' }));
    await owner.send(new PutObjectCommand({ Bucket, Key: 'deleted', Body: 'gone' }));
    markerVersionId = (await owner.send(new DeleteObjectCommand({ Bucket, Key: 'deleted' }))).VersionId!;
    await other.send(new CreateBucketCommand({ Bucket: 'eve-bucket' }));
  });
  afterAll(() => gw?.stop());

  const denied = async (p: Promise<unknown>) => {
    const err = await s3Error(p);
    return { status: err.$metadata.httpStatusCode, name: err.name };
  };
  const refusal = { status: 403, name: 'AccessDenied' };

  it.each(['exists', 'never-existed', 'deleted'])('HEAD, GET and GetObjectAttributes of "%s" are all 403', async (Key) => {
    expect(await denied(other.send(new HeadObjectCommand({ Bucket, Key })))).toMatchObject({ status: 403 });
    expect(await denied(other.send(new GetObjectCommand({ Bucket, Key })))).toEqual(refusal);
    expect(await denied(other.send(new GetObjectAttributesCommand({ Bucket, Key, ObjectAttributes: ['ETag'] })))).toEqual(refusal);
  });

  it("a delete marker's version id is 403 without the marker's headers", async () => {
    const res = await fetch(`${gw.endpoint}/${Bucket}/deleted?versionId=${encodeURIComponent(markerVersionId)}`, { method: 'HEAD' });
    expect(res.status).toBe(403);
    expect(res.headers.get('x-amz-delete-marker')).toBeNull();
    expect(res.headers.get('allow')).toBeNull();
    expect(await denied(other.send(new GetObjectCommand({ Bucket, Key: 'deleted', VersionId: markerVersionId })))).toEqual(refusal);
  });

  it('CopyObject and UploadPartCopy from the private bucket are 403 whether the source exists or not', async () => {
    const { UploadId } = await other.send(new CreateMultipartUploadCommand({ Bucket: 'eve-bucket', Key: 'mpu' }));
    for (const key of ['exists', 'never-existed', 'deleted']) {
      expect(await denied(other.send(new CopyObjectCommand({ Bucket: 'eve-bucket', Key: 'copy', CopySource: `${Bucket}/${key}` })))).toEqual(refusal);
      expect(await denied(other.send(new UploadPartCopyCommand({ Bucket: 'eve-bucket', Key: 'mpu', UploadId, PartNumber: 1, CopySource: `${Bucket}/${key}` })))).toEqual(refusal);
    }
  });

  it('the owner still gets the true answers', async () => {
    expect(await denied(owner.send(new GetObjectCommand({ Bucket, Key: 'never-existed' })))).toEqual({ status: 404, name: 'NoSuchKey' });
    expect(await denied(owner.send(new HeadObjectCommand({ Bucket, Key: 'deleted', VersionId: markerVersionId })))).toMatchObject({ status: 405 });
    expect(await denied(owner.send(new CopyObjectCommand({ Bucket, Key: 'copy', CopySource: `${Bucket}/never-existed` })))).toEqual({ status: 404, name: 'NoSuchKey' });
  });
});

/**
 * A bucket policy's s3:ListBucket decides the 404 / 403 of a missing key as the ACL's READ does,
 * evaluated with the key as s3:prefix (ceph/s3-tests test_head_object_404_with_policy_prefix; AWS:
 * "If you have the s3:ListBucket permission on the bucket, Amazon S3 returns an HTTP status code 404").
 */
describe('a policy allowing s3:ListBucket on a prefix reveals missing keys only under it', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;
  let other: S3Client;
  const Bucket = 'half-open';
  const listPublic = { Effect: 'Allow', Principal: { AWS: '*' }, Action: 's3:ListBucket', Resource: `arn:aws:s3:::${Bucket}`, Condition: { StringLike: { 's3:prefix': 'public/*' } } };
  const status = async (p: Promise<unknown>) => {
    const err = await s3Error(p);
    return { status: err.$metadata.httpStatusCode, name: err.name };
  };

  beforeAll(async () => {
    gw = await startGateway('existence-policy');
    owner = gw.client();
    other = gw.client(await createUser(gw, 'mallory', 'Mallory'));
    await owner.send(new CreateBucketCommand({ Bucket }));
    await owner.send(new PutObjectCommand({ Bucket, Key: 'public/exists', Body: 'x' }));
    await owner.send(new PutBucketPolicyCommand({ Bucket, Policy: JSON.stringify({ Version: '2012-10-17', Statement: [listPublic] }) }));
  });
  afterAll(() => gw?.stop());

  it('without s3:GetObject: HEAD and GET of a missing key under the prefix are 404, elsewhere 403; an existing key is 403', async () => {
    expect(await status(other.send(new HeadObjectCommand({ Bucket, Key: 'public/object' })))).toMatchObject({ status: 404 });
    expect(await status(other.send(new GetObjectCommand({ Bucket, Key: 'public/object' })))).toEqual({ status: 404, name: 'NoSuchKey' });
    expect(await status(other.send(new HeadObjectCommand({ Bucket, Key: 'private/object' })))).toMatchObject({ status: 403 });
    expect(await status(other.send(new GetObjectCommand({ Bucket, Key: 'private/object' })))).toEqual({ status: 403, name: 'AccessDenied' });
    expect(await status(other.send(new GetObjectCommand({ Bucket, Key: 'public/exists' })))).toEqual({ status: 403, name: 'AccessDenied' });
  });

  it('with s3:GetObject on every key: the missing key is 404 under the prefix, 403 elsewhere', async () => {
    const read = { Effect: 'Allow', Principal: { AWS: '*' }, Action: 's3:GetObject', Resource: `arn:aws:s3:::${Bucket}/*` };
    await owner.send(new PutBucketPolicyCommand({ Bucket, Policy: JSON.stringify({ Version: '2012-10-17', Statement: [listPublic, read] }) }));
    expect(await status(other.send(new GetObjectCommand({ Bucket, Key: 'public/missing' })))).toEqual({ status: 404, name: 'NoSuchKey' });
    expect(await status(other.send(new GetObjectCommand({ Bucket, Key: 'private/missing' })))).toEqual({ status: 403, name: 'AccessDenied' });
    expect((await other.send(new GetObjectCommand({ Bucket, Key: 'public/exists' }))).$metadata.httpStatusCode).toBe(200);
  });
});
