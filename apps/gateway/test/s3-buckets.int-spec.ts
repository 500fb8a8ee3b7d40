import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteBucketTaggingCommand,
  GetBucketLocationCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  HeadBucketCommand,
  ListBucketsCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { s3Error } from './s3-test-helpers';

describe('buckets through the AWS SDK v3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;

  beforeAll(async () => {
    gw = await startGateway('buckets');
    s3 = gw.client();
  });
  afterAll(() => gw?.stop());

  it('creates, heads, lists and deletes a bucket', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'alpha-bucket' }));
    await s3.send(new HeadBucketCommand({ Bucket: 'alpha-bucket' }));
    const list = await s3.send(new ListBucketsCommand({}));
    expect(list.Buckets?.map((b) => b.Name)).toContain('alpha-bucket');
    expect(list.Owner?.ID).toBe('tester');
    expect(list.Buckets?.find((b) => b.Name === 'alpha-bucket')?.CreationDate).toBeInstanceOf(Date);
    await s3.send(new DeleteBucketCommand({ Bucket: 'alpha-bucket' }));
    const gone = await s3Error(s3.send(new HeadBucketCommand({ Bucket: 'alpha-bucket' })));
    expect(gone.$metadata.httpStatusCode).toBe(404);
  });

  it('answers BucketAlreadyOwnedByYou or BucketAlreadyExists for a taken name', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'taken-bucket', CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } }));
    const again = await s3Error(s3.send(new CreateBucketCommand({ Bucket: 'taken-bucket', CreateBucketConfiguration: { LocationConstraint: 'eu-west-1' } })));
    expect(again.name).toBe('BucketAlreadyOwnedByYou');
    expect(again.$metadata.httpStatusCode).toBe(409);
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: 'taken-bucket' }));
    expect(location.LocationConstraint).toBe('eu-west-1');
  });

  it.each(['ab', 'UpperCase', 'has_underscore', '-leading', 'trailing-', 'a..b', '192.168.5.4', 'x'.repeat(64)])('rejects the bucket name %s with InvalidBucketName', async (name) => {
    const err = await s3Error(s3.send(new CreateBucketCommand({ Bucket: name })));
    expect(err.name).toBe('InvalidBucketName');
    expect(err.$metadata.httpStatusCode).toBe(400);
  });

  it('refuses to delete a bucket that is not empty', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'full-bucket' }));
    await s3.send(new PutObjectCommand({ Bucket: 'full-bucket', Key: 'k', Body: 'x' }));
    const err = await s3Error(s3.send(new DeleteBucketCommand({ Bucket: 'full-bucket' })));
    expect(err.name).toBe('BucketNotEmpty');
    expect(err.$metadata.httpStatusCode).toBe(409);
    await s3.send(new HeadBucketCommand({ Bucket: 'full-bucket' }));
  });

  it('answers NoSuchBucket for a missing bucket', async () => {
    const err = await s3Error(s3.send(new GetBucketVersioningCommand({ Bucket: 'no-such-bucket-here' })));
    expect(err.name).toBe('NoSuchBucket');
  });

  it('switches versioning on and suspends it', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'versioned-bucket' }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'versioned-bucket' }))).Status).toBeUndefined();
    await s3.send(new PutBucketVersioningCommand({ Bucket: 'versioned-bucket', VersioningConfiguration: { Status: 'Enabled' } }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'versioned-bucket' }))).Status).toBe('Enabled');
    await s3.send(new PutBucketVersioningCommand({ Bucket: 'versioned-bucket', VersioningConfiguration: { Status: 'Suspended' } }));
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: 'versioned-bucket' }))).Status).toBe('Suspended');
  });

  it('stores, returns and deletes bucket tags', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'tagged-bucket' }));
    const none = await s3Error(s3.send(new GetBucketTaggingCommand({ Bucket: 'tagged-bucket' })));
    expect(none.name).toBe('NoSuchTagSet');
    await s3.send(new PutBucketTaggingCommand({ Bucket: 'tagged-bucket', Tagging: { TagSet: [{ Key: 'team', Value: 'storage' }, { Key: 'env', Value: 'dev' }] } }));
    const got = await s3.send(new GetBucketTaggingCommand({ Bucket: 'tagged-bucket' }));
    expect(Object.fromEntries(got.TagSet!.map((t) => [t.Key, t.Value]))).toEqual({ team: 'storage', env: 'dev' });
    await s3.send(new DeleteBucketTaggingCommand({ Bucket: 'tagged-bucket' }));
    expect((await s3Error(s3.send(new GetBucketTaggingCommand({ Bucket: 'tagged-bucket' })))).name).toBe('NoSuchTagSet');
  });

  it('lists only the caller’s own buckets', async () => {
    const res = await fetch(`${gw.adminUrl}/admin/users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'other', displayName: 'Other User' }),
    });
    expect(res.status).toBe(201);
    const { accessKey } = (await res.json()) as { accessKey: { accessKeyId: string; secretAccessKey: string } };
    const other = gw.client({ accessKeyId: accessKey.accessKeyId, secretAccessKey: accessKey.secretAccessKey });
    await other.send(new CreateBucketCommand({ Bucket: 'others-bucket' }));
    const mine = await s3.send(new ListBucketsCommand({}));
    expect(mine.Buckets?.map((b) => b.Name)).not.toContain('others-bucket');
    const theirs = await other.send(new ListBucketsCommand({}));
    expect(theirs.Buckets?.map((b) => b.Name)).toEqual(['others-bucket']);
    expect(theirs.Owner).toEqual({ ID: 'other', DisplayName: 'Other User' });
    const denied = await s3Error(s3.send(new DeleteBucketCommand({ Bucket: 'others-bucket' })));
    expect(denied.name).toBe('AccessDenied');
  });

  it('pages ListBuckets with max-buckets, continuation-token and prefix', async () => {
    for (const name of ['page-c', 'page-a', 'page-b']) await s3.send(new CreateBucketCommand({ Bucket: name }));
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const r = await s3.send(new ListBucketsCommand({ Prefix: 'page-', MaxBuckets: 2, ContinuationToken: token }));
      expect(r.Buckets!.length).toBeLessThanOrEqual(2);
      expect(r.Prefix).toBe('page-');
      seen.push(...r.Buckets!.map((b) => b.Name!));
      token = r.ContinuationToken;
    } while (token);
    expect(seen).toEqual(['page-a', 'page-b', 'page-c']);
    const all = await s3.send(new ListBucketsCommand({}));
    expect(all.ContinuationToken).toBeUndefined();
    expect(all.Buckets!.map((b) => b.Name)).toEqual(expect.arrayContaining(seen));
    expect((await s3Error(s3.send(new ListBucketsCommand({ MaxBuckets: 0 })))).name).toBe('InvalidArgument');
    expect((await s3Error(s3.send(new ListBucketsCommand({ ContinuationToken: '%%%' })))).name).toBe('InvalidArgument');
  });
});
