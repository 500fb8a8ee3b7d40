import {
  CreateBucketCommand,
  DeleteBucketPolicyCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketPolicyCommand,
  GetBucketPolicyStatusCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutBucketPolicyCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { createHmac } from 'crypto';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText, createUser, s3Error } from './s3-test-helpers';

const statement = (s: Record<string, unknown>) => ({ Effect: 'Allow', ...s });
const policyOf = (...statements: Record<string, unknown>[]) => JSON.stringify({ Version: '2012-10-17', Statement: statements });

describe('bucket policies (AWS SDK v3 against a gateway process)', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;
  let alice: S3Client;

  beforeAll(async () => {
    gw = await startGateway('policy');
    owner = gw.client();
    alice = gw.client(await createUser(gw, 'alice'));
  });
  afterAll(async () => {
    owner?.destroy();
    alice?.destroy();
    await gw?.stop();
  });

  const bucket = async (name: string) => {
    await owner.send(new CreateBucketCommand({ Bucket: name }));
    return name;
  };
  const put = (b: string, policy: string) => owner.send(new PutBucketPolicyCommand({ Bucket: b, Policy: policy }));
  const anon = (path: string, init?: RequestInit) => fetch(`${gw.endpoint}/${path}`, init);

  it('stores, returns and deletes a policy; GetBucketPolicy without one is NoSuchBucketPolicy', async () => {
    const b = await bucket('pol-crud');
    expect((await s3Error(owner.send(new GetBucketPolicyCommand({ Bucket: b })))).name).toBe('NoSuchBucketPolicy');
    const doc = policyOf(statement({ Sid: 'read', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }));
    await put(b, doc);
    expect((await owner.send(new GetBucketPolicyCommand({ Bucket: b }))).Policy).toBe(doc);
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: b }));
    const err = await s3Error(owner.send(new GetBucketPolicyCommand({ Bucket: b })));
    expect([err.name, err.$metadata.httpStatusCode]).toEqual(['NoSuchBucketPolicy', 404]);
  });

  it.each([
    ['a resource of another bucket', policyOf(statement({ Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::elsewhere/*' })), 'Policy has invalid resource'],
    ['an unknown principal form', policyOf(statement({ Principal: { AWS: 'arn:aws:iam::1:group/g' }, Action: 's3:GetObject', Resource: 'arn:aws:s3:::pol-bad/*' })), 'Invalid principal in policy'],
    ['a body that is no JSON object', '[1]', "Policies must be valid JSON and the first byte must be '{'"],
    ['an unknown action', policyOf(statement({ Principal: '*', Action: 's3:Fly', Resource: 'arn:aws:s3:::pol-bad/*' })), 'Policy has invalid action'],
    ['Allow with NotPrincipal', policyOf(statement({ NotPrincipal: { AWS: 'arn:aws:iam::s3tenant1:root' }, Action: 's3:ListBucket', Resource: 'arn:aws:s3:::pol-bad' })), 'Invalid policy syntax: NotPrincipal with Effect Allow is not supported'],
    ['more than 20 KB', JSON.stringify({ Id: 'x'.repeat(21_000), Statement: [statement({ Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::pol-bad/*' })] }), 'Policies must be no more than 20 KB'],
  ])('refuses %s with MalformedPolicy and the reason', async (_what, doc, reason) => {
    await owner.send(new CreateBucketCommand({ Bucket: 'pol-bad' })).catch(() => undefined);
    const err = await s3Error(put('pol-bad', doc));
    expect([err.name, err.$metadata.httpStatusCode, err.message]).toEqual(['MalformedPolicy', 400, reason]);
  });

  it('lets anonymous callers read what a public policy allows, and nothing else', async () => {
    const b = await bucket('pol-public');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'pub/a.txt', Body: 'hello' }));
    await put(b, policyOf(statement({ Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/pub/*` })));
    const ok = await anon(`${b}/pub/a.txt`);
    expect([ok.status, await ok.text()]).toEqual([200, 'hello']);
    expect((await anon(`${b}/pub/missing`)).status).toBe(403); // no s3:ListBucket: a missing key is not told apart
    expect((await anon(`${b}/pub/b.txt`, { method: 'PUT', body: 'x' })).status).toBe(403);
    expect((await anon(`${b}?list-type=2`)).status).toBe(403);
    expect(await bodyText((await alice.send(new GetObjectCommand({ Bucket: b, Key: 'pub/a.txt' }))).Body)).toBe('hello');
    expect((await owner.send(new GetBucketPolicyStatusCommand({ Bucket: b }))).PolicyStatus?.IsPublic).toBe(true);
  });

  it('accepts the policy `mc anonymous set download` writes (every Sid empty) and serves what it allows', async () => {
    const b = await bucket('pol-mc');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'public/a.txt', Body: 'open' }));
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'private/b.txt', Body: 'closed' }));
    // byte for byte what mc (minio-go's policy package) sent, for prefix "public"
    const doc = `{"Statement":[{"Action":["s3:GetBucketLocation"],"Effect":"Allow","Principal":{"AWS":["*"]},"Resource":["arn:aws:s3:::${b}"],"Sid":""},{"Action":["s3:ListBucket"],"Condition":{"StringEquals":{"s3:prefix":["public"]}},"Effect":"Allow","Principal":{"AWS":["*"]},"Resource":["arn:aws:s3:::${b}"],"Sid":""},{"Action":["s3:GetObject"],"Effect":"Allow","Principal":{"AWS":["*"]},"Resource":["arn:aws:s3:::${b}/public*"],"Sid":""}],"Version":"2012-10-17"}`;
    await put(b, doc);
    expect((await owner.send(new GetBucketPolicyCommand({ Bucket: b }))).Policy).toBe(doc);
    const ok = await anon(`${b}/public/a.txt`);
    expect([ok.status, await ok.text()]).toEqual([200, 'open']);
    expect((await anon(`${b}/private/b.txt`)).status).toBe(403);
    // named Sids must still differ
    const dup = policyOf(statement({ Sid: 'x', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }), statement({ Sid: 'x', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*` }));
    expect((await s3Error(put(b, dup))).message).toBe('Statement IDs (SID) in a single policy must be unique');
  });

  it('reports a policy fixed to a source network as not public', async () => {
    const b = await bucket('pol-status');
    expect((await owner.send(new GetBucketPolicyStatusCommand({ Bucket: b }))).PolicyStatus?.IsPublic).toBe(false);
    await put(b, policyOf(statement({ Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/24' } } })));
    expect((await owner.send(new GetBucketPolicyStatusCommand({ Bucket: b }))).PolicyStatus?.IsPublic).toBe(false);
    expect((await s3Error(alice.send(new GetBucketPolicyStatusCommand({ Bucket: b })))).name).toBe('AccessDenied');
  });

  it('grants another user a listing only under the prefix its condition names (s3:prefix)', async () => {
    const b = await bucket('pol-prefix');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'home/alice/x', Body: '1' }));
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'home/bob/y', Body: '2' }));
    await put(b, policyOf(statement({ Principal: { AWS: 'alice' }, Action: 's3:ListBucket', Resource: `arn:aws:s3:::${b}`, Condition: { StringLike: { 's3:prefix': 'home/alice/*' } } })));
    const listed = await alice.send(new ListObjectsV2Command({ Bucket: b, Prefix: 'home/alice/' }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual(['home/alice/x']);
    expect((await s3Error(alice.send(new ListObjectsV2Command({ Bucket: b, Prefix: 'home/bob/' })))).name).toBe('AccessDenied');
    expect((await s3Error(alice.send(new ListObjectsV2Command({ Bucket: b })))).name).toBe('AccessDenied');
  });

  it('applies an explicit deny to the owner too, but never to managing the policy', async () => {
    const b = await bucket('pol-deny');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'keep/a', Body: 'a' }));
    await put(b, policyOf(
      { Effect: 'Deny', Principal: '*', Action: ['s3:DeleteObject', 's3:PutBucketPolicy', 's3:GetBucketPolicy'], Resource: [`arn:aws:s3:::${b}/keep/*`, `arn:aws:s3:::${b}`] },
    ));
    expect((await s3Error(owner.send(new DeleteObjectCommand({ Bucket: b, Key: 'keep/a' })))).name).toBe('AccessDenied');
    expect((await owner.send(new GetBucketPolicyCommand({ Bucket: b }))).Policy).toContain('Deny');
    await owner.send(new DeleteBucketPolicyCommand({ Bucket: b }));
    await owner.send(new DeleteObjectCommand({ Bucket: b, Key: 'keep/a' }));
  });

  it('answers 405 to another user the policy lets manage the policy, 403 to one it does not', async () => {
    const b = await bucket('pol-manage');
    expect((await s3Error(alice.send(new GetBucketPolicyCommand({ Bucket: b })))).name).toBe('AccessDenied');
    await put(b, policyOf(statement({ Principal: { AWS: 'arn:aws:iam::alice:root' }, Action: 's3:*Policy', Resource: `arn:aws:s3:::${b}` })));
    const err = await s3Error(alice.send(new GetBucketPolicyCommand({ Bucket: b })));
    expect([err.name, err.$metadata.httpStatusCode]).toEqual(['MethodNotAllowed', 405]);
  });

  it('authorizes each key of DeleteObjects on its own', async () => {
    const b = await bucket('pol-multi');
    for (const Key of ['tmp/a', 'keep/b']) await owner.send(new PutObjectCommand({ Bucket: b, Key, Body: Key }));
    await put(b, policyOf(statement({ Principal: { AWS: 'alice' }, Action: 's3:DeleteObject', Resource: `arn:aws:s3:::${b}/tmp/*` })));
    const r = await alice.send(new DeleteObjectsCommand({ Bucket: b, Delete: { Objects: [{ Key: 'tmp/a' }, { Key: 'keep/b' }] } }));
    expect(r.Deleted?.map((d) => d.Key)).toEqual(['tmp/a']);
    expect(r.Errors?.map((e) => [e.Key, e.Code])).toEqual([['keep/b', 'AccessDenied']]);
    const left = await owner.send(new ListObjectsV2Command({ Bucket: b }));
    expect(left.Contents?.map((c) => c.Key)).toEqual(['keep/b']);
  });

  it('tests the object tags (s3:ExistingObjectTag) and the versioned action (s3:GetObjectVersion)', async () => {
    const b = await bucket('pol-tags');
    await owner.send(new PutBucketVersioningCommand({ Bucket: b, VersioningConfiguration: { Status: 'Enabled' } }));
    const tagged = await owner.send(new PutObjectCommand({ Bucket: b, Key: 'tagged', Body: 't', Tagging: 'public=yes' }));
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'plain', Body: 'p' }));
    await put(b, policyOf(statement({ Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringEquals: { 's3:ExistingObjectTag/public': 'yes' } } })));
    expect((await anon(`${b}/tagged`)).status).toBe(200);
    expect((await anon(`${b}/plain`)).status).toBe(403);
    expect((await anon(`${b}/tagged?versionId=${tagged.VersionId}`)).status).toBe(403);
  });

  it('refuses a policy condition on a key it does not know, and honours aws:SecureTransport', async () => {
    const b = await bucket('pol-tls');
    const err = await s3Error(put(b, policyOf(statement({ Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringEquals: { 'ostore:thing': 'x' } } }))));
    expect([err.name, err.message]).toEqual(['MalformedPolicy', 'Policy has an invalid condition key']);
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'k' }));
    await put(b, policyOf({ Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: `arn:aws:s3:::${b}/*`, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    expect((await s3Error(owner.send(new GetObjectCommand({ Bucket: b, Key: 'k' })))).name).toBe('AccessDenied');
  });

  it('gives SigV2 requests s3:signatureversion AWS and SigV4 ones AWS4-HMAC-SHA256', async () => {
    const b = await bucket('pol-sigv');
    await owner.send(new PutObjectCommand({ Bucket: b, Key: 'k', Body: 'k' }));
    await put(b, policyOf({ Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringEquals: { 's3:signatureversion': 'AWS' } } }));
    expect(await bodyText((await owner.send(new GetObjectCommand({ Bucket: b, Key: 'k' }))).Body)).toBe('k');
    const v2Get = (key: string) => {
      const date = new Date().toUTCString();
      const sig = createHmac('sha1', gw.credentials.secretAccessKey).update(`GET\n\n\n${date}\n/${b}/${key}`).digest('base64');
      return fetch(`${gw.endpoint}/${b}/${key}`, { headers: { Date: date, Authorization: `AWS ${gw.credentials.accessKeyId}:${sig}` } });
    };
    expect((await v2Get('k')).status).toBe(403);
    await put(b, policyOf({ Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: `arn:aws:s3:::${b}/*`, Condition: { StringEquals: { 's3:signatureversion': 'AWS4-HMAC-SHA256' } } }));
    expect((await v2Get('k')).status).toBe(200);
    expect((await s3Error(owner.send(new GetObjectCommand({ Bucket: b, Key: 'k' })))).name).toBe('AccessDenied');
  });
});
