import {
  CreateBucketCommand,
  GetBucketAclCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutBucketAclCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketPolicyCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { createUser, errorCode, s3Error } from './s3-test-helpers';

const DAY_MS = 86_400_000;

/**
 * Where BucketOwnerEnforced still accepts an ACL and where it does not, on every path that takes
 * one (https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html: "PUT
 * requests that ... contain ACLs that grant full control to the bucket owner succeed"), and the
 * x-amz-expiration header of objects a lifecycle Expiration rule matches.
 */
describe('BucketOwnerEnforced ACL equivalents, POST acl fields and x-amz-expiration', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;
  let carol: S3Client;
  let ownerId: string;
  const Bucket = 'enforced-acls';

  beforeAll(async () => {
    gw = await startGateway('acl-enforced', { S3_AUTH_CACHE_MS: '0', S3_BUCKET_CACHE_MS: '0' });
    owner = gw.client();
    carol = gw.client(await createUser(gw, 'carol', 'Carol'));
    await owner.send(new CreateBucketCommand({ Bucket, ObjectOwnership: 'BucketOwnerEnforced' }));
    ownerId = (await owner.send(new GetBucketAclCommand({ Bucket }))).Owner!.ID!;
    await owner.send(new PutObjectCommand({ Bucket, Key: 'k', Body: 'v' }));
  }, 300_000); // a fresh keyspace's migrations on a loaded box
  afterAll(() => gw?.stop());

  const ownerOnly = () => ({ Owner: { ID: ownerId }, Grants: [{ Grantee: { Type: 'CanonicalUser' as const, ID: ownerId }, Permission: 'FULL_CONTROL' as const }] });

  it('accepts an AccessControlPolicy body that grants only the bucket owner FULL_CONTROL, on the bucket and on an object', async () => {
    await owner.send(new PutBucketAclCommand({ Bucket, AccessControlPolicy: ownerOnly() }));
    await owner.send(new PutObjectAclCommand({ Bucket, Key: 'k', AccessControlPolicy: ownerOnly() }));
    expect((await owner.send(new GetBucketAclCommand({ Bucket }))).Grants?.map((g) => [g.Grantee?.ID, g.Permission])).toEqual([[ownerId, 'FULL_CONTROL']]);
  });

  it('refuses a body or grant header that grants anyone else with AccessControlListNotSupported', async () => {
    const more = { ...ownerOnly(), Grants: [...ownerOnly().Grants, { Grantee: { Type: 'CanonicalUser' as const, ID: 'carol' }, Permission: 'READ' as const }] };
    const body = await s3Error(owner.send(new PutObjectAclCommand({ Bucket, Key: 'k', AccessControlPolicy: more })));
    expect([body.name, body.$metadata.httpStatusCode]).toEqual(['AccessControlListNotSupported', 400]);
    const readOnly = { ...ownerOnly(), Grants: [{ Grantee: { Type: 'CanonicalUser' as const, ID: ownerId }, Permission: 'READ' as const }] };
    expect((await s3Error(owner.send(new PutBucketAclCommand({ Bucket, AccessControlPolicy: readOnly })))).name).toBe('AccessControlListNotSupported');
    const header = await s3Error(owner.send(new PutObjectCommand({ Bucket, Key: 'h', Body: 'x', GrantFullControl: 'id="carol"' })));
    expect(header.name).toBe('AccessControlListNotSupported');
  });

  it('accepts x-amz-grant-full-control naming the bucket owner alone', async () => {
    await owner.send(new PutObjectCommand({ Bucket, Key: 'granted', Body: 'x', GrantFullControl: `id="${ownerId}"` }));
    await owner.send(new PutObjectAclCommand({ Bucket, Key: 'granted', GrantFullControl: `id="${ownerId}"` }));
  });

  it("refuses x-amz-acl: private from another user the policy allows everything, on the bucket's ACL and on an object's", async () => {
    const b = 'enforced-alt';
    await owner.send(new CreateBucketCommand({ Bucket: b, ObjectOwnership: 'BucketOwnerEnforced' }));
    const Policy = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: '*' }, Action: '*', Resource: [`arn:aws:s3:::${b}`, `arn:aws:s3:::${b}/*`] }] });
    await owner.send(new PutBucketPolicyCommand({ Bucket: b, Policy }));
    await carol.send(new PutObjectCommand({ Bucket: b, Key: 'c', Body: 'x' }));
    for (const refused of [carol.send(new PutBucketAclCommand({ Bucket: b, ACL: 'private' })), carol.send(new PutObjectAclCommand({ Bucket: b, Key: 'c', ACL: 'private' }))]) {
      const e = await s3Error(refused);
      expect([e.name, e.$metadata.httpStatusCode]).toEqual(['AccessControlListNotSupported', 400]);
    }
    await owner.send(new PutBucketAclCommand({ Bucket: b, ACL: 'private' }));
  });

  describe('POST object acl field', () => {
    const post = async (bucket: string, key: string, acl: string) => {
      const p = await createPresignedPost(owner as unknown as Parameters<typeof createPresignedPost>[0], { Bucket: bucket, Key: key, Fields: { acl }, Expires: 300 });
      const form = new FormData();
      for (const [k, v] of Object.entries(p.fields)) form.append(k, v);
      form.append('file', new Blob(['posted'], { type: 'text/plain' }), 'f.txt');
      return fetch(p.url, { method: 'POST', body: form });
    };

    it('refuses a non-default ACL under BucketOwnerEnforced as the x-amz-acl header is, and accepts bucket-owner-full-control', async () => {
      const refused = await post(Bucket, 'posted-public', 'public-read');
      expect([refused.status, errorCode(await refused.text())]).toEqual([400, 'AccessControlListNotSupported']);
      expect((await s3Error(owner.send(new HeadObjectCommand({ Bucket, Key: 'posted-public' })))).$metadata.httpStatusCode).toBe(404);
      expect((await post(Bucket, 'posted-full', 'bucket-owner-full-control')).status).toBe(204);
      expect((await owner.send(new HeadObjectCommand({ Bucket, Key: 'posted-full' }))).ContentLength).toBe(6);
    });

    it('refuses a public ACL field under BlockPublicAcls', async () => {
      await owner.send(new CreateBucketCommand({ Bucket: 'post-blocked', ObjectOwnership: 'ObjectWriter' }));
      await owner.send(new PutPublicAccessBlockCommand({ Bucket: 'post-blocked', PublicAccessBlockConfiguration: { BlockPublicAcls: true } }));
      const refused = await post('post-blocked', 'p', 'public-read');
      expect([refused.status, errorCode(await refused.text())]).toEqual([403, 'AccessDenied']);
      expect((await post('post-blocked', 'q', 'private')).status).toBe(204);
    });
  });

  it('x-amz-expiration on PUT, HEAD and GET of an object an enabled Expiration rule matches, with the rule id and the next midnight after Days', async () => {
    await owner.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket,
        LifecycleConfiguration: {
          Rules: [
            { ID: 'logs-3d', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 3 } },
            { ID: 'off', Status: 'Disabled', Filter: { Prefix: 'tmp/' }, Expiration: { Days: 1 } },
          ],
        },
      }),
    );
    const before = Date.now();
    const put = await owner.send(new PutObjectCommand({ Bucket, Key: 'logs/a', Body: 'x' }));
    const parse = (h: string | undefined) => /^expiry-date="([^"]+)", rule-id="([^"]+)"$/.exec(h ?? '');
    const m = parse(put.Expiration);
    expect(m?.[2]).toBe('logs-3d');
    const at = Date.parse(m![1]);
    // AWS: creation + Days, rounded up to the next midnight UTC
    expect(at % DAY_MS).toBe(0);
    expect(at).toBeGreaterThan(before + 3 * DAY_MS - DAY_MS);
    expect(at).toBeLessThanOrEqual(Math.ceil((Date.now() + 3 * DAY_MS) / DAY_MS) * DAY_MS);
    expect((await owner.send(new HeadObjectCommand({ Bucket, Key: 'logs/a' }))).Expiration).toBe(put.Expiration);
    expect((await owner.send(new GetObjectCommand({ Bucket, Key: 'logs/a' }))).Expiration).toBe(put.Expiration);
    // no header where no enabled rule matches
    expect((await owner.send(new PutObjectCommand({ Bucket, Key: 'tmp/a', Body: 'x' }))).Expiration).toBeUndefined();
    expect((await owner.send(new HeadObjectCommand({ Bucket, Key: 'k' }))).Expiration).toBeUndefined();
    expect((await s3Error(carol.send(new HeadObjectCommand({ Bucket, Key: 'logs/a' })))).$metadata.httpStatusCode).toBe(403);
  });
});
