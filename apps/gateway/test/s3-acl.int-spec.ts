import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetBucketAclCommand,
  GetObjectAclCommand,
  GetObjectCommand,
  Grant,
  ListObjectsV2Command,
  GetBucketOwnershipControlsCommand,
  PutBucketAclCommand,
  PutBucketPolicyCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText, createUser, errorCode, s3Error, signedRequest } from './s3-test-helpers';

const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTH_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';
const LOG_DELIVERY = 'http://acs.amazonaws.com/groups/s3/LogDelivery';

/** A grant list as [grantee, permission] pairs, comparable whatever the order. */
const pairs = (grants: Grant[] | undefined) =>
  (grants ?? []).map((g) => `${g.Grantee?.ID ?? g.Grantee?.URI}:${g.Grantee?.DisplayName ?? ''}:${g.Permission}`).sort();

describe('ACL grants (AccessControlPolicy bodies, x-amz-grant-* headers, grantees by id, e-mail and group)', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;
  let bob: S3Client;
  let carol: S3Client;
  let ownerId: string;
  const anonymous = (path: string) => fetch(`${gw.endpoint}${path}`);

  beforeAll(async () => {
    gw = await startGateway('acl', { S3_AUTH_CACHE_MS: '0', S3_BUCKET_CACHE_MS: '0' });
    owner = gw.client();
    // user ids that are e-mail addresses: a grant by emailAddress resolves to them
    bob = gw.client(await createUser(gw, 'bob@example.com', 'Bob'));
    carol = gw.client(await createUser(gw, 'carol', 'Carol'));
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-main', ObjectOwnership: 'ObjectWriter' }));
    ownerId = (await owner.send(new GetBucketAclCommand({ Bucket: 'acl-main' }))).Owner!.ID!;
  });
  afterAll(() => gw?.stop());

  it('PutBucketAcl with an AccessControlPolicy body grants by canonical id; GetBucketAcl shows owner and every grant with display names', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-body', ObjectOwnership: 'ObjectWriter' }));
    await owner.send(new PutObjectCommand({ Bucket: 'acl-body', Key: 'k', Body: 'v' }));
    expect((await s3Error(bob.send(new ListObjectsV2Command({ Bucket: 'acl-body' })))).name).toBe('AccessDenied');
    await owner.send(
      new PutBucketAclCommand({
        Bucket: 'acl-body',
        AccessControlPolicy: {
          Owner: { ID: ownerId },
          Grants: [
            { Grantee: { Type: 'CanonicalUser', ID: ownerId }, Permission: 'FULL_CONTROL' },
            { Grantee: { Type: 'CanonicalUser', ID: 'bob@example.com' }, Permission: 'READ' },
            { Grantee: { Type: 'Group', URI: LOG_DELIVERY }, Permission: 'WRITE' },
          ],
        },
      }),
    );
    const acl = await owner.send(new GetBucketAclCommand({ Bucket: 'acl-body' }));
    expect(acl.Owner).toEqual({ ID: ownerId, DisplayName: expect.any(String) });
    expect(pairs(acl.Grants)).toEqual(
      [`${ownerId}:${acl.Owner!.DisplayName}:FULL_CONTROL`, 'bob@example.com:Bob:READ', `${LOG_DELIVERY}::WRITE`].sort(),
    );
    expect((await bob.send(new ListObjectsV2Command({ Bucket: 'acl-body' }))).Contents?.map((c) => c.Key)).toEqual(['k']);
    // READ on the bucket lists; it neither writes nor reads the objects (their ACLs decide)
    expect((await s3Error(bob.send(new PutObjectCommand({ Bucket: 'acl-body', Key: 'b', Body: 'x' })))).name).toBe('AccessDenied');
    expect((await s3Error(bob.send(new GetObjectCommand({ Bucket: 'acl-body', Key: 'k' })))).name).toBe('AccessDenied');
    expect((await s3Error(carol.send(new ListObjectsV2Command({ Bucket: 'acl-body' })))).name).toBe('AccessDenied');
  });

  it('GetBucketAcl lists group grants first, then user grants, a group grantee with URI and no ID or DisplayName', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-order', ObjectOwnership: 'ObjectWriter', ACL: 'public-read-write' }));
    const acl = await owner.send(new GetBucketAclCommand({ Bucket: 'acl-order' }));
    expect(acl.Grants).toEqual([
      { Grantee: { Type: 'Group', URI: ALL_USERS }, Permission: 'READ' },
      { Grantee: { Type: 'Group', URI: ALL_USERS }, Permission: 'WRITE' },
      { Grantee: { Type: 'CanonicalUser', ID: ownerId, DisplayName: acl.Owner!.DisplayName }, Permission: 'FULL_CONTROL' },
    ]);
  });

  it('x-amz-grant-* headers on PutObject grant by id and e-mail; GetObjectAcl lists them', async () => {
    await owner.send(new PutObjectCommand({ Bucket: 'acl-main', Key: 'shared', Body: 'for bob', GrantRead: 'emailAddress="bob@example.com"', GrantReadACP: 'id="carol"' }));
    expect(await bodyText((await bob.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'shared' }))).Body)).toBe('for bob');
    expect((await s3Error(carol.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'shared' })))).name).toBe('AccessDenied');
    // carol may read the ACL (READ_ACP) but not change it (no WRITE_ACP)
    const acl = await carol.send(new GetObjectAclCommand({ Bucket: 'acl-main', Key: 'shared' }));
    expect(pairs(acl.Grants)).toEqual(['bob@example.com:Bob:READ', 'carol:Carol:READ_ACP']);
    expect(acl.Owner?.ID).toBe(ownerId);
    expect((await s3Error(carol.send(new PutObjectAclCommand({ Bucket: 'acl-main', Key: 'shared', ACL: 'public-read' })))).name).toBe('AccessDenied');
    expect((await s3Error(bob.send(new GetObjectAclCommand({ Bucket: 'acl-main', Key: 'shared' })))).name).toBe('AccessDenied');
  });

  it('WRITE_ACP lets a grantee replace an object ACL; FULL_CONTROL grants everything on it', async () => {
    await owner.send(new PutObjectCommand({ Bucket: 'acl-main', Key: 'delegated', Body: 'd', GrantWriteACP: 'id="carol"' }));
    await carol.send(new PutObjectAclCommand({ Bucket: 'acl-main', Key: 'delegated', GrantFullControl: 'id="bob@example.com"' }));
    expect(await bodyText((await bob.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'delegated' }))).Body)).toBe('d');
    expect(pairs((await bob.send(new GetObjectAclCommand({ Bucket: 'acl-main', Key: 'delegated' }))).Grants)).toEqual(['bob@example.com:Bob:FULL_CONTROL']);
    // carol's WRITE_ACP was replaced with the rest of the list
    expect((await s3Error(carol.send(new PutObjectAclCommand({ Bucket: 'acl-main', Key: 'delegated', ACL: 'private' })))).name).toBe('AccessDenied');
  });

  it("with ACLs enabled the bucket owner does not read another user's object or its ACL without a grant, and may still delete it", async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-foreign', ObjectOwnership: 'ObjectWriter', GrantWrite: 'id="bob@example.com"' }));
    await bob.send(new PutObjectCommand({ Bucket: 'acl-foreign', Key: 'bobs', Body: 'b' }));
    expect((await s3Error(owner.send(new GetObjectCommand({ Bucket: 'acl-foreign', Key: 'bobs' })))).name).toBe('AccessDenied');
    expect((await s3Error(owner.send(new GetObjectAclCommand({ Bucket: 'acl-foreign', Key: 'bobs' })))).name).toBe('AccessDenied');
    expect((await s3Error(owner.send(new PutObjectAclCommand({ Bucket: 'acl-foreign', Key: 'bobs', ACL: 'public-read' })))).name).toBe('AccessDenied');
    expect(await bodyText((await bob.send(new GetObjectCommand({ Bucket: 'acl-foreign', Key: 'bobs' }))).Body)).toBe('b');
    expect((await s3Error(owner.send(new CopyObjectCommand({ Bucket: 'acl-foreign', Key: 'copied', CopySource: 'acl-foreign/bobs' })))).name).toBe('AccessDenied');
    // bucket-owner-read grants the bucket owner READ (not READ_ACP); bucket-owner-full-control everything
    await bob.send(new PutObjectCommand({ Bucket: 'acl-foreign', Key: 'shared', Body: 's', ACL: 'bucket-owner-read' }));
    expect(await bodyText((await owner.send(new GetObjectCommand({ Bucket: 'acl-foreign', Key: 'shared' }))).Body)).toBe('s');
    await owner.send(new CopyObjectCommand({ Bucket: 'acl-foreign', Key: 'copied', CopySource: 'acl-foreign/shared' }));
    expect((await s3Error(owner.send(new GetObjectAclCommand({ Bucket: 'acl-foreign', Key: 'shared' })))).name).toBe('AccessDenied');
    await bob.send(new PutObjectCommand({ Bucket: 'acl-foreign', Key: 'given', Body: 'g', ACL: 'bucket-owner-full-control' }));
    expect((await owner.send(new GetObjectAclCommand({ Bucket: 'acl-foreign', Key: 'given' }))).Owner?.ID).toBe('bob@example.com');
    await owner.send(new DeleteObjectCommand({ Bucket: 'acl-foreign', Key: 'bobs' }));
    // gone: the owner, who may list, is told so (bob, who may not, would get AccessDenied either way)
    expect((await s3Error(owner.send(new GetObjectCommand({ Bucket: 'acl-foreign', Key: 'bobs' })))).name).toBe('NoSuchKey');
  });

  it('READ_ACP / WRITE_ACP / WRITE on a bucket: reading and replacing its ACL, writing objects', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-delegate', ObjectOwnership: 'ObjectWriter', GrantReadACP: 'id="carol"', GrantWrite: 'id="bob@example.com"' }));
    expect(pairs((await carol.send(new GetBucketAclCommand({ Bucket: 'acl-delegate' }))).Grants)).toEqual(['bob@example.com:Bob:WRITE', 'carol:Carol:READ_ACP']);
    expect((await s3Error(carol.send(new PutBucketAclCommand({ Bucket: 'acl-delegate', ACL: 'public-read' })))).name).toBe('AccessDenied');
    await bob.send(new PutObjectCommand({ Bucket: 'acl-delegate', Key: 'from-bob', Body: 'b' }));
    expect((await s3Error(bob.send(new GetBucketAclCommand({ Bucket: 'acl-delegate' })))).name).toBe('AccessDenied');
    await owner.send(new PutBucketAclCommand({ Bucket: 'acl-delegate', GrantWriteACP: 'id="carol"' }));
    await carol.send(new PutBucketAclCommand({ Bucket: 'acl-delegate', GrantRead: `uri="${ALL_USERS}"` }));
    expect((await anonymous('/acl-delegate?list-type=2')).status).toBe(200);
  });

  it('group grantees: AllUsers opens to anonymous callers, AuthenticatedUsers to signed-in users only', async () => {
    await owner.send(new PutObjectCommand({ Bucket: 'acl-main', Key: 'members', Body: 'm', GrantRead: `uri="${AUTH_USERS}"` }));
    await owner.send(new PutObjectCommand({ Bucket: 'acl-main', Key: 'everyone', Body: 'e', GrantRead: `uri="${ALL_USERS}"` }));
    expect(await bodyText((await carol.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'members' }))).Body)).toBe('m');
    expect((await anonymous('/acl-main/members')).status).toBe(403);
    const open = await anonymous('/acl-main/everyone');
    expect([open.status, await open.text()]).toEqual([200, 'e']);
  });

  it('CreateMultipartUpload and CopyObject take grant headers for the object they make', async () => {
    const { UploadId } = await owner.send(new CreateMultipartUploadCommand({ Bucket: 'acl-main', Key: 'mpu', GrantRead: 'id="carol"' }));
    const part = await owner.send(new UploadPartCommand({ Bucket: 'acl-main', Key: 'mpu', UploadId, PartNumber: 1, Body: 'parts' }));
    await owner.send(new CompleteMultipartUploadCommand({ Bucket: 'acl-main', Key: 'mpu', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
    expect(await bodyText((await carol.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'mpu' }))).Body)).toBe('parts');
    await owner.send(new CopyObjectCommand({ Bucket: 'acl-main', Key: 'copied', CopySource: 'acl-main/mpu', GrantRead: 'id="bob@example.com"' }));
    expect(await bodyText((await bob.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'copied' }))).Body)).toBe('parts');
    // the copy got the request's grants, not the source's
    expect((await s3Error(carol.send(new GetObjectCommand({ Bucket: 'acl-main', Key: 'copied' })))).name).toBe('AccessDenied');
  });

  it('refuses what S3 refuses: unknown e-mail, unknown id, unknown group, canned ACL with grants, malformed bodies, a foreign owner', async () => {
    const email = await s3Error(owner.send(new PutObjectAclCommand({ Bucket: 'acl-main', Key: 'shared', GrantRead: 'emailAddress="nobody@example.com"' })));
    expect([email.name, email.$metadata.httpStatusCode]).toEqual(['UnresolvableGrantByEmailAddress', 400]);
    const id = await s3Error(owner.send(new PutBucketAclCommand({ Bucket: 'acl-main', GrantRead: 'id="no-such-user"' })));
    expect([id.name, id.$metadata.httpStatusCode]).toEqual(['InvalidArgument', 400]);
    const group = await s3Error(owner.send(new PutBucketAclCommand({ Bucket: 'acl-main', GrantRead: 'uri="http://acs.amazonaws.com/groups/global/Nobody"' })));
    expect(group.name).toBe('InvalidArgument');
    const both = await s3Error(owner.send(new PutObjectCommand({ Bucket: 'acl-main', Key: 'x', Body: 'x', ACL: 'public-read', GrantRead: 'id="carol"' })));
    expect(both.name).toBe('InvalidRequest');
    const format = await s3Error(owner.send(new PutObjectCommand({ Bucket: 'acl-main', Key: 'x', Body: 'x', GrantRead: 'carol' })));
    expect(format.name).toBe('InvalidArgument');
    const put = (body: string) => signedRequest(gw.endpoint, gw.credentials, 'PUT', '/acl-main', { query: { acl: '' }, body });
    const notXml = await put('<AccessControlPolicy><Owner>');
    expect([notXml.status, errorCode(notXml.text)]).toEqual([400, 'MalformedACLError']);
    const badPermission = await put(
      `<AccessControlPolicy><Owner><ID>${ownerId}</ID></Owner><AccessControlList><Grant><Grantee><ID>carol</ID></Grantee><Permission>EVERYTHING</Permission></Grant></AccessControlList></AccessControlPolicy>`,
    );
    expect([badPermission.status, errorCode(badPermission.text)]).toEqual([400, 'MalformedACLError']);
    const foreignOwner = await put(`<AccessControlPolicy><Owner><ID>carol</ID></Owner><AccessControlList/></AccessControlPolicy>`);
    expect([foreignOwner.status, errorCode(foreignOwner.text)]).toEqual([403, 'AccessDenied']);
    // a blank e-mail address or id names no one (found by the fuzz run: it used to reach the user table as an empty key, 500)
    const blankEmail = await put(
      `<AccessControlPolicy><AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser"><EmailAddress>   </EmailAddress></Grantee><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>`,
    );
    expect([blankEmail.status, errorCode(blankEmail.text)]).toEqual([400, 'UnresolvableGrantByEmailAddress']);
    const blankId = await put(`<AccessControlPolicy><AccessControlList><Grant><Grantee><ID> </ID></Grantee><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>`);
    expect([blankId.status, errorCode(blankId.text)]).toEqual([400, 'InvalidArgument']);
    // a grantee longer than a Cassandra key may be (the fuzzer's: a 70,000-character address) names no one
    const longEmail = await put(
      `<AccessControlPolicy><AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="AmazonCustomerByEmail"><EmailAddress>${'x'.repeat(70_000)}@example.com</EmailAddress></Grantee><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>`,
    );
    expect([longEmail.status, errorCode(longEmail.text)]).toEqual([400, 'UnresolvableGrantByEmailAddress']);
    const longId = await put(`<AccessControlPolicy><AccessControlList><Grant><Grantee><ID>${'i'.repeat(70_000)}</ID></Grantee><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>`);
    expect([longId.status, errorCode(longId.text)]).toEqual([400, 'InvalidArgument']);
    const blankHeader = await s3Error(owner.send(new PutBucketAclCommand({ Bucket: 'acl-main', GrantRead: 'emailAddress=""' })));
    expect(blankHeader.name).toBe('UnresolvableGrantByEmailAddress');
    const empty = await signedRequest(gw.endpoint, gw.credentials, 'PUT', '/acl-main', { query: { acl: '' } });
    expect([empty.status, errorCode(empty.text)]).toEqual([400, 'MalformedACLError']);
    // nothing was changed by the refused requests
    expect(pairs((await owner.send(new GetBucketAclCommand({ Bucket: 'acl-main' }))).Grants)).toHaveLength(1);
  });

  it('Public Access Block: BlockPublicAcls refuses public grants in headers and bodies, IgnorePublicAcls ignores only them', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-pab', ObjectOwnership: 'ObjectWriter' }));
    await owner.send(new PutObjectCommand({ Bucket: 'acl-pab', Key: 'k', Body: 'v', GrantRead: `uri="${ALL_USERS}", id="carol"` }));
    await owner.send(new PutPublicAccessBlockCommand({ Bucket: 'acl-pab', PublicAccessBlockConfiguration: { BlockPublicAcls: true, IgnorePublicAcls: true } }));
    expect((await s3Error(owner.send(new PutObjectAclCommand({ Bucket: 'acl-pab', Key: 'k', GrantRead: `uri="${AUTH_USERS}"` })))).name).toBe('AccessDenied');
    const body = await s3Error(
      owner.send(
        new PutBucketAclCommand({
          Bucket: 'acl-pab',
          AccessControlPolicy: { Owner: { ID: ownerId }, Grants: [{ Grantee: { Type: 'Group', URI: ALL_USERS }, Permission: 'READ' }] },
        }),
      ),
    );
    expect(body.name).toBe('AccessDenied');
    expect((await anonymous('/acl-pab/k')).status).toBe(403);
    expect(await bodyText((await carol.send(new GetObjectCommand({ Bucket: 'acl-pab', Key: 'k' }))).Body)).toBe('v');
  });

  it('BucketOwnerEnforced refuses grants with AccessControlListNotSupported and still answers Get*Acl', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-enforced', ObjectOwnership: 'BucketOwnerEnforced' }));
    const put = await s3Error(owner.send(new PutObjectCommand({ Bucket: 'acl-enforced', Key: 'k', Body: 'v', GrantRead: 'id="carol"' })));
    expect([put.name, put.$metadata.httpStatusCode]).toEqual(['AccessControlListNotSupported', 400]);
    const bucketAcl = await s3Error(
      owner.send(new PutBucketAclCommand({ Bucket: 'acl-enforced', AccessControlPolicy: { Owner: { ID: ownerId }, Grants: [{ Grantee: { Type: 'CanonicalUser', ID: 'carol' }, Permission: 'READ' }] } })),
    );
    expect(bucketAcl.name).toBe('AccessControlListNotSupported');
    const grantsOnCreate = await s3Error(owner.send(new CreateBucketCommand({ Bucket: 'acl-enforced-2', ObjectOwnership: 'BucketOwnerEnforced', GrantRead: 'id="carol"' })));
    expect(grantsOnCreate.name).toBe('InvalidBucketAclWithObjectOwnership');
    await owner.send(new PutObjectCommand({ Bucket: 'acl-enforced', Key: 'k', Body: 'v' }));
    expect(pairs((await owner.send(new GetObjectAclCommand({ Bucket: 'acl-enforced', Key: 'k' }))).Grants)).toEqual([expect.stringMatching(/:FULL_CONTROL$/)]);
  });

  it("a bucket created without x-amz-object-ownership has AWS's default, BucketOwnerEnforced: ACLs off, objects owned by the bucket owner", async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'acl-default' }));
    expect((await owner.send(new GetBucketOwnershipControlsCommand({ Bucket: 'acl-default' }))).OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    const refused = await s3Error(owner.send(new PutObjectCommand({ Bucket: 'acl-default', Key: 'k', Body: 'v', ACL: 'public-read' })));
    expect([refused.name, refused.$metadata.httpStatusCode]).toEqual(['AccessControlListNotSupported', 400]);
    expect((await s3Error(owner.send(new CreateBucketCommand({ Bucket: 'acl-default-public', ACL: 'public-read' })))).name).toBe('InvalidBucketAclWithObjectOwnership');
    // a writer the policy lets in writes objects the bucket owner owns
    const policy = { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: ['carol'] }, Action: 's3:PutObject', Resource: 'arn:aws:s3:::acl-default/*' }] };
    await owner.send(new PutBucketPolicyCommand({ Bucket: 'acl-default', Policy: JSON.stringify(policy) }));
    await carol.send(new PutObjectCommand({ Bucket: 'acl-default', Key: 'by-carol', Body: 'c' }));
    expect((await owner.send(new GetObjectAclCommand({ Bucket: 'acl-default', Key: 'by-carol' }))).Owner?.ID).toBe(ownerId);
    expect((await s3Error(carol.send(new GetObjectCommand({ Bucket: 'acl-default', Key: 'by-carol' })))).name).toBe('AccessDenied');
    // `private` from the bucket owner is the owner's full control, as bucket-owner-full-control is
    // (rclone and s3cmd send it on every PUT); from another writer it would grant that writer
    await owner.send(new PutObjectCommand({ Bucket: 'acl-default', Key: 'private-by-owner', Body: 'p', ACL: 'private' }));
    await owner.send(new PutObjectCommand({ Bucket: 'acl-default', Key: 'full-control', Body: 'p', ACL: 'bucket-owner-full-control' }));
    const foreign = await s3Error(carol.send(new PutObjectCommand({ Bucket: 'acl-default', Key: 'private-by-carol', Body: 'c', ACL: 'private' })));
    expect([foreign.name, foreign.$metadata.httpStatusCode]).toEqual(['AccessControlListNotSupported', 400]);
  });

  describe("CopyObject and UploadPartCopy read the source under the source bucket's policy and ACLs", () => {
    const source = 'acl-copy-src';
    const policyOf = (effect: 'Allow' | 'Deny', action: string) =>
      JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: effect, Principal: { AWS: ['bob@example.com'] }, Action: action, Resource: `arn:aws:s3:::${source}/*` }] });
    const copy = (Key: string, CopySource = `${source}/obj`) => bob.send(new CopyObjectCommand({ Bucket: 'bob-dest', Key, CopySource }));

    beforeAll(async () => {
      await owner.send(new CreateBucketCommand({ Bucket: source, ObjectOwnership: 'ObjectWriter' }));
      await owner.send(new PutObjectCommand({ Bucket: source, Key: 'obj', Body: 'source body' }));
      await bob.send(new CreateBucketCommand({ Bucket: 'bob-dest' }));
    });

    it('refuses a source nothing lets the caller read, whatever the destination allows', async () => {
      expect((await s3Error(copy('denied'))).name).toBe('AccessDenied');
    });

    it("copies when the source bucket's policy allows s3:GetObject, and UploadPartCopy too", async () => {
      await owner.send(new PutBucketPolicyCommand({ Bucket: source, Policy: policyOf('Allow', 's3:GetObject') }));
      await copy('allowed');
      expect(await bodyText((await bob.send(new GetObjectCommand({ Bucket: 'bob-dest', Key: 'allowed' }))).Body)).toBe('source body');
      const { UploadId } = await bob.send(new CreateMultipartUploadCommand({ Bucket: 'bob-dest', Key: 'part-copied' }));
      const part = await bob.send(new UploadPartCopyCommand({ Bucket: 'bob-dest', Key: 'part-copied', UploadId, PartNumber: 1, CopySource: `${source}/obj` }));
      expect(part.CopyPartResult?.ETag).toBeDefined();
    });

    it('a named source version needs s3:GetObjectVersion', async () => {
      const versioned = await owner.send(new GetObjectAclCommand({ Bucket: source, Key: 'obj' }));
      expect(versioned.Owner?.ID).toBe(ownerId);
      expect((await s3Error(copy('versioned', `${source}/obj?versionId=null`))).name).toBe('AccessDenied');
      await owner.send(new PutBucketPolicyCommand({ Bucket: source, Policy: policyOf('Allow', 's3:GetObjectVersion') }));
      await copy('versioned', `${source}/obj?versionId=null`);
    });

    it("an explicit Deny in the source's policy refuses even what the source's ACL grants", async () => {
      await owner.send(new PutObjectAclCommand({ Bucket: source, Key: 'obj', GrantRead: 'id="bob@example.com"' }));
      await owner.send(new PutBucketPolicyCommand({ Bucket: source, Policy: policyOf('Allow', 's3:PutObject') }));
      await copy('by-acl'); // the ACL grant alone lets bob read the source
      await owner.send(new PutBucketPolicyCommand({ Bucket: source, Policy: policyOf('Deny', 's3:GetObject') }));
      expect((await s3Error(copy('by-acl-denied'))).name).toBe('AccessDenied');
    });
  });
});
