import { CreateBucketCommand, ListObjectsCommand, ListObjectsCommandOutput, paginateListObjectsV2, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';

/**
 * A start-after 1,000 levels deep through the gateway and the AWS SDK: ListObjectsV2 answers short
 * (even empty) pages with IsTruncated and a continuation token that resumes deeper (the listing's
 * level budget), and the SDK's paginator reassembles the listing; ListObjects (v1) pages always
 * hold a key when truncated, so a client continuing from its last key gets everything.
 */
describe('S3 listings after a 1,000-level start key, without a delimiter', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'deep-marker';
  const chain = '/'.repeat(1000);
  const keys = ['a/x', chain + 'k', chain + 'l', '/'.repeat(400) + 'mid', 'zz'];

  beforeAll(async () => {
    gw = await startGateway('deepmarker');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket, Key, Body: 'x' }));
  }, 300_000);
  afterAll(() => gw?.stop());

  it('ListObjectsV2: the SDK paginator follows short pages to the same keys', async () => {
    const got: string[] = [];
    let pages = 0;
    for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket, StartAfter: chain + 'k' })) {
      pages++;
      got.push(...(page.Contents ?? []).map((c) => c.Key!));
    }
    expect(got).toEqual([chain + 'l', '/'.repeat(400) + 'mid', 'a/x', 'zz']);
    expect(pages).toBeGreaterThan(1); // cut at the level budget, resumed by the token
  });

  it('ListObjects v1: every truncated page holds a key, and marker = last key reassembles the listing', async () => {
    const got: string[] = [];
    let Marker: string | undefined = chain + 'k';
    for (let guard = 0; guard < 100; guard++) {
      const page: ListObjectsCommandOutput = await s3.send(new ListObjectsCommand({ Bucket, Marker }));
      const pageKeys: string[] = (page.Contents ?? []).map((c) => c.Key!);
      if (page.IsTruncated) expect(pageKeys.length).toBeGreaterThan(0);
      got.push(...pageKeys);
      if (!page.IsTruncated) break;
      Marker = pageKeys[pageKeys.length - 1];
    }
    expect(got).toEqual([chain + 'l', '/'.repeat(400) + 'mid', 'a/x', 'zz']);
  });
});
