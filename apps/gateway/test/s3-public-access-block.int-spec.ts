import {
  CreateBucketCommand,
  DeleteBucketOwnershipControlsCommand,
  DeletePublicAccessBlockCommand,
  GetBucketAclCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketPolicyStatusCommand,
  GetPublicAccessBlockCommand,
  PutBucketAclCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketPolicyCommand,
  PutObjectCommand,
  PutPublicAccessBlockCommand,
  PublicAccessBlockConfiguration,
  S3Client,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { s3Error, signedRequest } from './s3-test-helpers';

const publicRead = (b: string) =>
  JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }] });
const off: PublicAccessBlockConfiguration = { BlockPublicAcls: false, IgnorePublicAcls: false, BlockPublicPolicy: false, RestrictPublicBuckets: false };

describe('Public Access Block and Object Ownership (AWS SDK v3 against a gateway process)', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;

  beforeAll(async () => {
    gw = await startGateway('pab');
    owner = gw.client();
  });
  afterAll(async () => {
    owner?.destroy();
    await gw?.stop();
  });

  // ACLs on, as a user of AWS would create a bucket whose ACLs matter since 2023
  const bucket = async (name: string, block?: PublicAccessBlockConfiguration) => {
    await owner.send(new CreateBucketCommand({ Bucket: name, ObjectOwnership: 'ObjectWriter' }));
    if (block) await owner.send(new PutPublicAccessBlockCommand({ Bucket: name, PublicAccessBlockConfiguration: { ...off, ...block } }));
    return name;
  };
  const anonGet = (path: string) => fetch(`${gw.endpoint}/${path}`).then((r) => r.status);

  it('stores, returns and deletes the configuration; none is NoSuchPublicAccessBlockConfiguration', async () => {
    const b = await bucket('pab-crud');
    const none = await s3Error(owner.send(new GetPublicAccessBlockCommand({ Bucket: b })));
    expect([none.name, none.$metadata.httpStatusCode]).toEqual(['NoSuchPublicAccessBlockConfiguration', 404]);
    await owner.send(new PutPublicAccessBlockCommand({ Bucket: b, PublicAccessBlockConfiguration: { BlockPublicAcls: true, RestrictPublicBuckets: true } }));
    expect((await owner.send(new GetPublicAccessBlockCommand({ Bucket: b }))).PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      IgnorePublicAcls: false,
      BlockPublicPolicy: false,
      RestrictPublicBuckets: true,
    });
    await owner.send(new DeletePublicAccessBlockCommand({ Bucket: b }));
    expect((await s3Error(owner.send(new GetPublicAccessBlockCommand({ Bucket: b })))).name).toBe('NoSuchPublicAccessBlockConfiguration');
  });

  it('refuses a configuration that is not the documented XML with MalformedXML', async () => {
    const b = await bucket('pab-bad');
    const r = await signedRequest(gw.endpoint, gw.credentials, 'PUT', `/${b}`, {
      query: { publicAccessBlock: '' },
      body: '<PublicAccessBlockConfiguration><BlockPublicAcls>yes</BlockPublicAcls></PublicAccessBlockConfiguration>',
    });
    expect([r.status, /<Code>(\w+)</.exec(r.text)?.[1]]).toEqual([400, 'MalformedXML']);
  });

  it('BlockPublicPolicy refuses a public policy and accepts a private one', async () => {
    const b = await bucket('pab-policy', { BlockPublicPolicy: true });
    const err = await s3Error(owner.send(new PutBucketPolicyCommand({ Bucket: b, Policy: publicRead(b) })));
    expect([err.name, err.$metadata.httpStatusCode]).toEqual(['AccessDenied', 403]);
    const own = JSON.stringify({ Statement: [{ Effect: 'Allow', Principal: { AWS: 'tester' }, Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }] });
    await owner.send(new PutBucketPolicyCommand({ Bucket: b, Policy: own }));
  });

  it('BlockPublicAcls refuses public canned ACLs on objects and the bucket', async () => {
    const b = await bucket('pab-acls', { BlockPublicAcls: true });
    expect((await s3Error(owner.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x', ACL: 'public-read' })))).name).toBe('AccessDenied');
    expect((await s3Error(owner.send(new PutBucketAclCommand({ Bucket: b, ACL: 'public-read' })))).name).toBe('AccessDenied');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x', ACL: 'private' }));
  });

  it('IgnorePublicAcls makes public ACLs grant nothing', async () => {
    const b = await bucket('pab-ignore');
    await owner.send(new PutBucketAclCommand({ Bucket: b, ACL: 'public-read' }));
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x', ACL: 'public-read' }));
    expect(await anonGet(`${b}/k`)).toBe(200);
    expect((await owner.send(new GetBucketPolicyStatusCommand({ Bucket: b }))).PolicyStatus?.IsPublic).toBe(true);
    await owner.send(new PutPublicAccessBlockCommand({ Bucket: b, PublicAccessBlockConfiguration: { ...off, IgnorePublicAcls: true } }));
    expect(await anonGet(`${b}/k`)).toBe(403);
    expect(await anonGet(`${b}?list-type=2`)).toBe(403);
    expect((await owner.send(new GetBucketPolicyStatusCommand({ Bucket: b }))).PolicyStatus?.IsPublic).toBe(false);
  });

  it('RestrictPublicBuckets keeps a public policy from granting anyone but the owner', async () => {
    const b = await bucket('pab-restrict');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'x' }));
    await owner.send(new PutBucketPolicyCommand({ Bucket: b, Policy: publicRead(b) }));
    expect(await anonGet(`${b}/k`)).toBe(200);
    await owner.send(new PutPublicAccessBlockCommand({ Bucket: b, PublicAccessBlockConfiguration: { ...off, RestrictPublicBuckets: true } }));
    expect(await anonGet(`${b}/k`)).toBe(403);
    expect((await owner.send(new GetBucketPolicyStatusCommand({ Bucket: b }))).PolicyStatus?.IsPublic).toBe(true);
  });

  it('stores, returns and deletes Object Ownership; a new bucket has BucketOwnerEnforced; none is OwnershipControlsNotFoundError', async () => {
    const b = 'own-crud';
    await owner.send(new CreateBucketCommand({ Bucket: b }));
    expect((await owner.send(new GetBucketOwnershipControlsCommand({ Bucket: b }))).OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    await owner.send(new DeleteBucketOwnershipControlsCommand({ Bucket: b }));
    const none = await s3Error(owner.send(new GetBucketOwnershipControlsCommand({ Bucket: b })));
    expect([none.name, none.$metadata.httpStatusCode]).toEqual(['OwnershipControlsNotFoundError', 404]);
    await owner.send(new PutBucketOwnershipControlsCommand({ Bucket: b, OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] } }));
    expect((await owner.send(new GetBucketOwnershipControlsCommand({ Bucket: b }))).OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerPreferred' }]);
    await owner.send(new DeleteBucketOwnershipControlsCommand({ Bucket: b }));
    expect((await s3Error(owner.send(new GetBucketOwnershipControlsCommand({ Bucket: b })))).name).toBe('OwnershipControlsNotFoundError');
    const bad = await signedRequest(gw.endpoint, gw.credentials, 'PUT', `/${b}`, {
      query: { ownershipControls: '' },
      body: '<OwnershipControls><Rule><ObjectOwnership>Nobody</ObjectOwnership></Rule></OwnershipControls>',
    });
    expect([bad.status, /<Code>(\w+)</.exec(bad.text)?.[1]]).toEqual([400, 'MalformedXML']);
  });

  it('BucketOwnerEnforced (x-amz-object-ownership on CreateBucket) disables ACLs but bucket-owner-full-control', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'own-enforced', ObjectOwnership: 'BucketOwnerEnforced' }));
    expect((await owner.send(new GetBucketOwnershipControlsCommand({ Bucket: 'own-enforced' }))).OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    const put = await s3Error(owner.send(new PutObjectCommand({ Bucket: 'own-enforced', Key: 'k', Body: 'x', ACL: 'public-read' })));
    expect([put.name, put.$metadata.httpStatusCode]).toEqual(['AccessControlListNotSupported', 400]);
    expect((await s3Error(owner.send(new PutBucketAclCommand({ Bucket: 'own-enforced', ACL: 'public-read' })))).name).toBe('AccessControlListNotSupported');
    await owner.send(new PutObjectCommand({ Bucket: 'own-enforced', Key: 'k', Body: 'x', ACL: 'bucket-owner-full-control' }));
    await owner.send(new PutObjectCommand({ Bucket: 'own-enforced', Key: 'k2', Body: 'x' }));
    expect((await owner.send(new GetBucketAclCommand({ Bucket: 'own-enforced' }))).Grants?.map((g) => g.Permission)).toEqual(['FULL_CONTROL']);
    const both = await s3Error(owner.send(new CreateBucketCommand({ Bucket: 'own-conflict', ObjectOwnership: 'BucketOwnerEnforced', ACL: 'public-read' })));
    expect(both.name).toBe('InvalidBucketAclWithObjectOwnership');
    const unknown = await s3Error(owner.send(new CreateBucketCommand({ Bucket: 'own-unknown', ObjectOwnership: 'Whoever' as never })));
    expect(unknown.name).toBe('InvalidArgument');
  });

  it('refuses BucketOwnerEnforced on a bucket whose ACL is public', async () => {
    const b = await bucket('own-public');
    await owner.send(new PutBucketAclCommand({ Bucket: b, ACL: 'public-read' }));
    const err = await s3Error(owner.send(new PutBucketOwnershipControlsCommand({ Bucket: b, OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] } })));
    expect(err.name).toBe('InvalidBucketAclWithObjectOwnership');
  });
});
