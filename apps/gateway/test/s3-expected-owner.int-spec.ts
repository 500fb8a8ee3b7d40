import {
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketAclCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketLocationCommand,
  GetBucketPolicyCommand,
  GetBucketTaggingCommand,
  GetBucketVersioningCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListObjectVersionsCommand,
  PutBucketTaggingCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText, s3Error } from './s3-test-helpers';

/** x-amz-expected-bucket-owner (issue 12): a bucket owned by another than expected is 403 AccessDenied, on every operation. */
describe('expected bucket owner', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let ownerId: string;
  const Bucket = 'owned';
  const WRONG = '111122223333';

  beforeAll(async () => {
    gw = await startGateway('expowner');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'original' }));
    ownerId = (await s3.send(new GetBucketAclCommand({ Bucket }))).Owner!.ID!;
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const operations: Array<[string, (owner: string) => Promise<unknown>]> = [
    ['PutObject', (o) => s3.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'overwritten', ExpectedBucketOwner: o }))],
    ['GetObject', (o) => s3.send(new GetObjectCommand({ Bucket, Key: 'k', ExpectedBucketOwner: o }))],
    ['HeadObject', (o) => s3.send(new HeadObjectCommand({ Bucket, Key: 'k', ExpectedBucketOwner: o }))],
    ['DeleteObject', (o) => s3.send(new DeleteObjectCommand({ Bucket, Key: 'other', ExpectedBucketOwner: o }))],
    ['DeleteObjects', (o) => s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: [{ Key: 'other' }] }, ExpectedBucketOwner: o }))],
    ['CopyObject', (o) => s3.send(new CopyObjectCommand({ Bucket, Key: 'copy', CopySource: `${Bucket}/k`, ExpectedBucketOwner: o }))],
    ['CopyObject (source)', (o) => s3.send(new CopyObjectCommand({ Bucket, Key: 'copy', CopySource: `${Bucket}/k`, ExpectedSourceBucketOwner: o }))],
    ['CreateMultipartUpload', (o) => s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'mpu', ExpectedBucketOwner: o }))],
    ['ListObjectsV2', (o) => s3.send(new ListObjectsV2Command({ Bucket, ExpectedBucketOwner: o }))],
    ['ListObjectVersions', (o) => s3.send(new ListObjectVersionsCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['ListMultipartUploads', (o) => s3.send(new ListMultipartUploadsCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['HeadBucket', (o) => s3.send(new HeadBucketCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['GetBucketLocation', (o) => s3.send(new GetBucketLocationCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['GetBucketAcl', (o) => s3.send(new GetBucketAclCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['GetBucketVersioning', (o) => s3.send(new GetBucketVersioningCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['PutBucketVersioning', (o) => s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Suspended' }, ExpectedBucketOwner: o }))],
    ['PutBucketTagging', (o) => s3.send(new PutBucketTaggingCommand({ Bucket, Tagging: { TagSet: [{ Key: 't', Value: 'v' }] }, ExpectedBucketOwner: o }))],
    ['GetBucketTagging', (o) => s3.send(new GetBucketTaggingCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['GetBucketLifecycleConfiguration', (o) => s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket, ExpectedBucketOwner: o }))],
    ['PutObjectTagging', (o) => s3.send(new PutObjectTaggingCommand({ Bucket, Key: 'k', Tagging: { TagSet: [] }, ExpectedBucketOwner: o }))],
    ['GetObjectTagging', (o) => s3.send(new GetObjectTaggingCommand({ Bucket, Key: 'k', ExpectedBucketOwner: o }))],
    ['GetObjectAcl', (o) => s3.send(new GetObjectAclCommand({ Bucket, Key: 'k', ExpectedBucketOwner: o }))],
    ['GetBucketPolicy (not configured)', (o) => s3.send(new GetBucketPolicyCommand({ Bucket, ExpectedBucketOwner: o }))],
  ];

  it.each(operations)('%s with another expected owner is 403 AccessDenied', async (_name, command) => {
    const err = await s3Error(command(WRONG));
    expect(err.$metadata.httpStatusCode).toBe(403);
    // HEAD answers carry no body, so no code
    if (!_name.startsWith('Head')) expect(err.name).toBe('AccessDenied');
  });

  it('nothing a refused request would have written was written', async () => {
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket, Key: 'k' }))).Body)).toBe('original');
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket }))).Status).toBeUndefined();
    expect((await s3.send(new ListObjectsV2Command({ Bucket }))).Contents?.map((c) => c.Key)).toEqual(['k']);
  });

  it.each(operations.filter(([name]) => !name.includes('not configured') && name !== 'GetBucketLifecycleConfiguration'))(
    '%s with the right expected owner succeeds',
    async (_name, command) => {
      await expect(command(ownerId)).resolves.toBeDefined();
    },
  );
});
