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

  it('answers a re-create of an own bucket at the limit as below it (200 in us-east-1), not TooManyBuckets', async () => {
    const owner = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: await createUser(gw, 'recreate-user'), forcePathStyle: true });
    for (const Bucket of ['rec-a', 'rec-b', 'rec-c']) await owner.send(new CreateBucketCommand({ Bucket }));
    const again = await owner.send(new CreateBucketCommand({ Bucket: 'rec-b' }));
    expect(again.$metadata.httpStatusCode).toBe(200);
    // someone else's name at the limit is still the name's answer, and a new name the limit's
    expect((await s3Error(owner.send(new CreateBucketCommand({ Bucket: 'lim-other' })))).name).toBe('BucketAlreadyExists');
    expect((await s3Error(owner.send(new CreateBucketCommand({ Bucket: 'rec-d' })))).name).toBe('TooManyBuckets');
  });

  it('holds the limit under racing creates of one user: at most the limit survives, the rest are TooManyBuckets', async () => {
    const racer = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: await createUser(gw, 'race-user'), forcePathStyle: true });
    const names = Array.from({ length: 8 }, (_, i) => `race-${i}`);
    const results = await Promise.allSettled(names.map((Bucket) => racer.send(new CreateBucketCommand({ Bucket }))));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected' && (r.reason as Error).name === 'TooManyBuckets').length;
    const listed = (await racer.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name) ?? [];
    expect(listed.length).toBeLessThanOrEqual(3);
    expect(ok).toBe(listed.length);
    expect(ok + refused).toBe(names.length);
    // the refused names are free again: a create after a delete succeeds for one of them
    const loser = names.find((n) => !listed.includes(n))!;
    if (listed.length === 3) await racer.send(new DeleteBucketCommand({ Bucket: listed[0]! }));
    await racer.send(new CreateBucketCommand({ Bucket: loser }));
    expect((await racer.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toContain(loser);
  });
});
