import http from 'http';
import { execFile } from 'child_process';
import { resolve } from 'path';
import { promisify } from 'util';
import { createHash } from 'crypto';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketAclCommand,
  PutObjectAclCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { deriveSigningKey } from '@ostore/s3/protocol';
import { encodeSignedChunkedBody } from '@ostore/s3/protocol/testing';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText, createUser, errorCode, s3Error } from './s3-test-helpers';

/** Sends a request to 127.0.0.1 with any Host header, signed for that host. */
async function rawSigned(
  gw: GatewayUnderTest,
  host: string,
  method: string,
  path: string,
  body: Buffer,
  extraHeaders: Record<string, string> = {},
  bodyFor?: (signature: string, amzDate: string) => Buffer,
): Promise<{ status: number; text: string }> {
  const port = Number(new URL(gw.endpoint).port);
  const signer = new SignatureV4({ credentials: gw.credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  const headers: Record<string, string> = {
    host: `${host}:${port}`,
    'x-amz-content-sha256': createHash('sha256').update(body).digest('hex'),
    ...extraHeaders,
  };
  const signed = await signer.sign({ method, protocol: 'http:', hostname: host, port, path, headers });
  const signature = /Signature=([0-9a-f]+)/.exec(signed.headers['authorization'])![1];
  const payload = bodyFor ? bodyFor(signature, signed.headers['x-amz-date']) : body;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { ...signed.headers, 'content-length': String(payload.length) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** A request with `Expect: 100-continue`: the body goes only after the server's 100 Continue. */
function expectContinue(gw: GatewayUnderTest, method: string, path: string, body: Buffer): Promise<{ status: number; continued: boolean; text: string }> {
  const port = Number(new URL(gw.endpoint).port);
  return new Promise((resolve, reject) => {
    let continued = false;
    const headers = { host: `127.0.0.1:${port}`, expect: '100-continue', 'content-length': String(body.length) };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers });
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        resolve({ status: res.statusCode!, continued, text });
        if (!continued) req.destroy();
      });
    });
    req.on('error', (e) => (continued ? reject(e) : undefined));
    req.flushHeaders();
  });
}

describe('canned ACLs, virtual-host addressing and signed streaming uploads', () => {
  let gw: GatewayUnderTest;
  let owner: S3Client;
  let other: S3Client;

  beforeAll(async () => {
    gw = await startGateway('access', { S3_AUTH_CACHE_MS: '0' });
    owner = gw.client();
    other = gw.client(await createUser(gw, 'mallory', 'Mallory'));
    await owner.send(new CreateBucketCommand({ Bucket: 'private-bucket', ObjectOwnership: 'ObjectWriter' }));
    await owner.send(new PutObjectCommand({ Bucket: 'private-bucket', Key: 'secret', Body: 'hidden' }));
  });
  afterAll(() => gw?.stop());

  it('checks a header sent on several lines as signed joined by "," (the AWS SDK for Go sends GetObjectAttributes so)', async () => {
    const port = Number(new URL(gw.endpoint).port);
    const signer = new SignatureV4({ credentials: gw.credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
    const attributes = ['ETag', 'ObjectSize'];
    const signed = await signer.sign({
      method: 'GET',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port,
      path: '/private-bucket/secret',
      query: { attributes: '' },
      headers: { host: `127.0.0.1:${port}`, 'x-amz-content-sha256': createHash('sha256').update('').digest('hex'), 'x-amz-object-attributes': attributes.join(',') },
    });
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      // an array value goes out as one header line per value
      const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: '/private-bucket/secret?attributes=', headers: { ...signed.headers, 'x-amz-object-attributes': attributes } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, text: body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect([status, text]).toEqual([200, expect.stringContaining('<ObjectSize>6</ObjectSize>')]);
    expect(text).toContain('<ETag>');
  });

  it('denies another user and anonymous callers everything on a private bucket', async () => {
    expect((await s3Error(other.send(new GetObjectCommand({ Bucket: 'private-bucket', Key: 'secret' })))).name).toBe('AccessDenied');
    expect((await s3Error(other.send(new ListObjectsV2Command({ Bucket: 'private-bucket' })))).name).toBe('AccessDenied');
    expect((await s3Error(other.send(new PutObjectCommand({ Bucket: 'private-bucket', Key: 'x', Body: 'y' })))).name).toBe('AccessDenied');
    const anon = await fetch(`${gw.endpoint}/private-bucket?list-type=2`);
    expect(anon.status).toBe(403);
    expect(errorCode(await anon.text())).toBe('AccessDenied');
  });

  it('lets anyone read a public-read object, and only that object', async () => {
    await owner.send(new PutObjectCommand({ Bucket: 'private-bucket', Key: 'shared', Body: 'for everyone', ACL: 'public-read' }));
    const anon = await fetch(`${gw.endpoint}/private-bucket/shared`);
    expect(anon.status).toBe(200);
    expect(await anon.text()).toBe('for everyone');
    expect((await fetch(`${gw.endpoint}/private-bucket/secret`)).status).toBe(403);
    await owner.send(new PutObjectAclCommand({ Bucket: 'private-bucket', Key: 'shared', ACL: 'private' }));
    expect((await fetch(`${gw.endpoint}/private-bucket/shared`)).status).toBe(403);
  });

  it('authenticated-read opens an object to signed-in users only', async () => {
    await owner.send(new PutObjectCommand({ Bucket: 'private-bucket', Key: 'members', Body: 'members only', ACL: 'authenticated-read' }));
    expect(await bodyText((await other.send(new GetObjectCommand({ Bucket: 'private-bucket', Key: 'members' }))).Body)).toBe('members only');
    expect((await fetch(`${gw.endpoint}/private-bucket/members`)).status).toBe(403);
  });

  it('public-read buckets list anonymously; public-read-write buckets take anonymous writes', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'open-bucket', ACL: 'public-read', ObjectOwnership: 'ObjectWriter' }));
    await owner.send(new PutObjectCommand({ Bucket: 'open-bucket', Key: 'listed', Body: 'x' }));
    const list = await fetch(`${gw.endpoint}/open-bucket?list-type=2`);
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('<Key>listed</Key>');
    expect((await fetch(`${gw.endpoint}/open-bucket/anon`, { method: 'PUT', body: 'nope' })).status).toBe(403);
    await owner.send(new PutBucketAclCommand({ Bucket: 'open-bucket', ACL: 'public-read-write' }));
    expect((await fetch(`${gw.endpoint}/open-bucket/anon`, { method: 'PUT', body: 'anonymous write' })).status).toBe(200);
    expect(await bodyText((await owner.send(new GetObjectCommand({ Bucket: 'open-bucket', Key: 'anon' }))).Body)).toBe('anonymous write');
  });

  it('serves virtual-host-style requests (bucket in the Host header)', async () => {
    await owner.send(new CreateBucketCommand({ Bucket: 'vhost-bucket' }));
    const put = await rawSigned(gw, 'vhost-bucket.localhost', 'PUT', '/dir/vh.txt', Buffer.from('virtual host'));
    expect(put.status).toBe(200);
    expect(await bodyText((await owner.send(new GetObjectCommand({ Bucket: 'vhost-bucket', Key: 'dir/vh.txt' }))).Body)).toBe('virtual host');
    const list = await rawSigned(gw, 'vhost-bucket.localhost', 'GET', '/', Buffer.alloc(0));
    expect(list.status).toBe(200);
    expect(list.text).toContain('<Key>dir/vh.txt</Key>');
  });

  it('answers Expect: 100-continue only after authorizing, and ignores other Expect values', async () => {
    const refused = await expectContinue(gw, 'PUT', '/private-bucket/anon-upload', Buffer.from('data'));
    expect(refused).toMatchObject({ status: 403, continued: false });
    expect(errorCode(refused.text)).toBe('AccessDenied');
    const odd = await rawSigned(gw, 'vhost-bucket.localhost', 'PUT', '/expect-200', Buffer.from('odd expect'), { expect: '200' });
    expect(odd.status).toBe(200);
    expect(await bodyText((await owner.send(new GetObjectCommand({ Bucket: 'vhost-bucket', Key: 'expect-200' }))).Body)).toBe('odd expect');
    // the SDK itself sends Expect: 100-continue for larger bodies
    const big = Buffer.alloc(3 * 1024 * 1024, 1);
    await owner.send(new PutObjectCommand({ Bucket: 'vhost-bucket', Key: 'expect-continue', Body: big }));
    expect((await owner.send(new HeadObjectCommand({ Bucket: 'vhost-bucket', Key: 'expect-continue' }))).ContentLength).toBe(big.length);
  });

  it('checks a body against a signed empty-payload hash (only a request without a body skips hashing)', async () => {
    const empty = createHash('sha256').update('').digest('hex');
    const put = await rawSigned(gw, 'vhost-bucket.localhost', 'PUT', '/smuggled', Buffer.from('not empty'), {
      'x-amz-content-sha256': empty,
    });
    expect(put.status).toBe(400);
    expect(errorCode(put.text)).toBe('XAmzContentSHA256Mismatch');
    expect((await s3Error(owner.send(new GetObjectCommand({ Bucket: 'vhost-bucket', Key: 'smuggled' })))).name).toBe('NoSuchKey');
    const emptyPut = await rawSigned(gw, 'vhost-bucket.localhost', 'PUT', '/empty', Buffer.alloc(0));
    expect(emptyPut.status).toBe(200);
    const got = await rawSigned(gw, 'vhost-bucket.localhost', 'GET', '/dir/vh.txt', Buffer.alloc(0));
    expect(got).toEqual({ status: 200, text: 'virtual host' });
  });

  it('accepts STREAMING-AWS4-HMAC-SHA256-PAYLOAD uploads and rejects a forged chunk', async () => {
    const payload = Buffer.alloc(200 * 1024, 9);
    const upload = (tamper: boolean) =>
      rawSigned(
        gw,
        '127.0.0.1',
        'PUT',
        '/private-bucket/streamed',
        Buffer.alloc(0),
        {
          'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
          'content-encoding': 'aws-chunked',
          'x-amz-decoded-content-length': String(payload.length),
        },
        (seedSignature, amzDate) => {
          const date = amzDate.slice(0, 8);
          const body = encodeSignedChunkedBody(
            payload,
            { signingKey: deriveSigningKey(gw.credentials.secretAccessKey, date, 'us-east-1', 's3'), seedSignature, scope: `${date}/us-east-1/s3/aws4_request`, amzDate },
            { chunkSize: 64 * 1024 },
          );
          // one payload byte of the first chunk (its header is 88 bytes): the framing stays valid, the chunk signature does not
          if (tamper) body[100] ^= 1;
          return body;
        },
      );
    const ok = await upload(false);
    expect(ok.status).toBe(200);
    const got = await owner.send(new GetObjectCommand({ Bucket: 'private-bucket', Key: 'streamed' }));
    expect(got.ContentLength).toBe(payload.length);
    expect(got.ContentEncoding).toBeUndefined();
    const forged = await upload(true);
    expect(forged.status).toBe(403);
    expect(errorCode(forged.text)).toBe('SignatureDoesNotMatch');
  });

  it('the admin CLI creates users and keys, and a disabled key or user stops working', async () => {
    const root = resolve(__dirname, '../../..');
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', ...args], {
        cwd: root,
        env: { ...process.env, OSTORE_ADMIN_URL: gw.adminUrl, ADMIN_TOKEN: gw.adminToken },
      });
    const created = JSON.parse((await cli('user', 'create', 'carol', '--display-name', 'Carol C')).stdout);
    expect(created.user).toMatchObject({ id: 'carol', displayName: 'Carol C', disabled: false });
    expect(created.accessKey.accessKeyId).toMatch(/^[A-Z0-9]{20}$/);
    expect(created.accessKey.secretAccessKey).toHaveLength(40);
    const carol = gw.client({ accessKeyId: created.accessKey.accessKeyId, secretAccessKey: created.accessKey.secretAccessKey });
    await carol.send(new CreateBucketCommand({ Bucket: 'carol-bucket' }));
    const users = JSON.parse((await cli('user', 'list')).stdout) as { id: string }[];
    expect(users.map((u) => u.id)).toEqual(expect.arrayContaining(['tester', 'mallory', 'carol']));
    const keys = JSON.parse((await cli('key', 'list', 'carol')).stdout) as { accessKeyId: string; secretAccessKey?: string }[];
    expect(keys.map((k) => k.accessKeyId)).toEqual([created.accessKey.accessKeyId]);
    expect(keys[0].secretAccessKey).toBeUndefined();

    await cli('key', 'disable', created.accessKey.accessKeyId);
    expect((await s3Error(carol.send(new ListObjectsV2Command({ Bucket: 'carol-bucket' })))).name).toBe('InvalidAccessKeyId');
    await cli('key', 'enable', created.accessKey.accessKeyId);
    await carol.send(new ListObjectsV2Command({ Bucket: 'carol-bucket' }));
    await cli('user', 'disable', 'carol');
    expect((await s3Error(carol.send(new ListObjectsV2Command({ Bucket: 'carol-bucket' })))).name).toBe('AccessDenied');

    const failure = await cli('user', 'create', 'carol').catch((e: { code: number; stderr: string }) => e);
    expect((failure as { code: number }).code).toBe(1);
    expect((failure as { stderr: string }).stderr).toMatch(/UserAlreadyExists|already exists/);
    const badToken = await promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', 'user', 'list'], {
      cwd: root,
      env: { ...process.env, OSTORE_ADMIN_URL: gw.adminUrl, ADMIN_TOKEN: 'wrong-token-0000000000' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((badToken as { stderr: string }).stderr).toContain('401');
  });
});
