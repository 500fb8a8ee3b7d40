import { CreateBucketCommand, DeleteBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { createUser, s3Error } from './s3-test-helpers';

/** The per-user bucket limit (S3_MAX_BUCKETS_PER_USER; AWS's default quota is 10,000). */
describe('bucket count limit', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;

  beforeAll(async () => {
    gw = await startGateway('bucketlimit', { S3_MAX_BUCKETS_PER_USER: '3' });
    s3 = gw.client();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('refuses a bucket past the limit with 400 TooManyBuckets, counts per user, and frees a slot on delete', async () => {
    for (const Bucket of ['lim-a', 'lim-b', 'lim-c']) await s3.send(new CreateBucketCommand({ Bucket }));
    const err = await s3Error(s3.send(new CreateBucketCommand({ Bucket: 'lim-d' })));
    expect(err.name).toBe('TooManyBuckets');
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toEqual(['lim-a', 'lim-b', 'lim-c']);

    const other = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: await createUser(gw, 'other-user'), forcePathStyle: true });
    await other.send(new CreateBucketCommand({ Bucket: 'lim-other' }));

    await s3.send(new DeleteBucketCommand({ Bucket: 'lim-b' }));
    await s3.send(new CreateBucketCommand({ Bucket: 'lim-d' }));
    expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toEqual(['lim-a', 'lim-c', 'lim-d']);
  });
});
