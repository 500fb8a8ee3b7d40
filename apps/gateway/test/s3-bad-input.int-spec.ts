import { CreateBucketCommand, DeleteBucketTaggingCommand, GetBucketTaggingCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { checksumOf } from '@ostore/s3/protocol';
import { createHash } from 'crypto';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyText, errorCode, s3Error, signedRequest } from './s3-test-helpers';

const md5Of = (body: string) => createHash('md5').update(body).digest('base64');

/** Every bad input gets the right S3 error, and nothing already stored changes. */
describe('bad input', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'bad-input';
  const send = (method: string, path: string, options: Parameters<typeof signedRequest>[4] = {}) => signedRequest(gw.endpoint, gw.credentials, method, path, options);

  beforeAll(async () => {
    gw = await startGateway('badinput');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'keep', Body: 'precious' }));
  });
  afterAll(async () => {
    // whatever happened above, the stored object is intact
    expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket, Key: 'keep' }))).Body)).toBe('precious');
    await gw?.stop();
  });

  it.each([
    ['not xml at all', 'this is not xml'],
    ['wrong root', '<Nope><Object><Key>keep</Key></Object></Nope>'],
    ['unclosed', '<Delete><Object><Key>keep</Key></Object>'],
    ['no objects', '<Delete></Delete>'],
    ['entity expansion', '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "keep">]><Delete><Object><Key>&x;</Key></Object></Delete>'],
  ])('DeleteObjects with %s is MalformedXML', async (_label, xml) => {
    const r = await send('POST', `/${Bucket}`, { query: { delete: '' }, body: xml, headers: { 'content-type': 'application/xml', 'content-md5': md5Of(xml) } });
    expect(r.status).toBe(400);
    expect(errorCode(r.text)).toBe('MalformedXML');
    expect(r.headers.get('x-amz-request-id')).toBeTruthy();
    expect(r.text).toContain('<RequestId>');
    expect(r.text).toContain(`<Resource>/${Bucket}</Resource>`);
  });

  it('more than 1000 keys in DeleteObjects is MalformedXML', async () => {
    const xml = `<Delete>${Array.from({ length: 1001 }, (_, i) => `<Object><Key>k${i}</Key></Object>`).join('')}</Delete>`;
    const r = await send('POST', `/${Bucket}`, { query: { delete: '' }, body: xml, headers: { 'content-md5': md5Of(xml) } });
    expect(errorCode(r.text)).toBe('MalformedXML');
  });

  describe('the integrity headers of small bodies', () => {
    const deleteKeep = '<Delete><Object><Key>keep</Key></Object></Delete>';

    it('DeleteObjects without Content-MD5 or a checksum is InvalidRequest, as on S3', async () => {
      const r = await send('POST', `/${Bucket}`, { query: { delete: '' }, body: deleteKeep });
      expect(r.status).toBe(400);
      expect(errorCode(r.text)).toBe('InvalidRequest');
      expect(r.text).toContain('Missing required header for this request: Content-MD5');
    });

    it.each([
      ['a Content-MD5 of another body', { 'content-md5': md5Of('<Delete/>') }, 'BadDigest'],
      ['a malformed Content-MD5', { 'content-md5': 'not-base64-md5' }, 'InvalidDigest'],
      ['a CRC32 of another body', { 'x-amz-checksum-crc32': checksumOf('CRC32', '<Delete/>') }, 'BadDigest'],
      ['a SHA256 of another body', { 'x-amz-checksum-sha256': checksumOf('SHA256', '<Delete/>') }, 'BadDigest'],
      ['a malformed CRC32', { 'x-amz-checksum-crc32': 'AAAA' }, 'InvalidRequest'],
    ])('DeleteObjects with %s is refused (%s) and deletes nothing', async (_label, headers, code) => {
      const r = await send('POST', `/${Bucket}`, { query: { delete: '' }, body: deleteKeep, headers: headers as Record<string, string> });
      expect(r.status).toBe(400);
      expect(errorCode(r.text)).toBe(code);
      expect(await bodyText((await s3.send(new GetObjectCommand({ Bucket, Key: 'keep' }))).Body)).toBe('precious');
    });

    it('DeleteObjects with only a matching checksum (x-amz-checksum-crc32c) deletes', async () => {
      await s3.send(new PutObjectCommand({ Bucket, Key: 'doomed', Body: 'x' }));
      const xml = '<Delete><Object><Key>doomed</Key></Object></Delete>';
      const r = await send('POST', `/${Bucket}`, { query: { delete: '' }, body: xml, headers: { 'x-amz-checksum-crc32c': checksumOf('CRC32C', xml) } });
      expect(r.status).toBe(200);
      expect(r.text).toContain('<Deleted><Key>doomed</Key></Deleted>');
      expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'doomed' })))).name).toBe('NoSuchKey');
    });

    it('a settings document whose checksum differs is BadDigest and changes nothing', async () => {
      const tagging = '<Tagging><TagSet><Tag><Key>team</Key><Value>red</Value></Tag></TagSet></Tagging>';
      const wrong: Record<string, string>[] = [{ 'x-amz-checksum-sha256': checksumOf('SHA256', 'other') }, { 'content-md5': md5Of('other') }];
      for (const headers of wrong) {
        const r = await send('PUT', `/${Bucket}`, { query: { tagging: '' }, body: tagging, headers });
        expect(r.status).toBe(400);
        expect(errorCode(r.text)).toBe('BadDigest');
      }
      expect((await s3Error(s3.send(new GetBucketTaggingCommand({ Bucket })))).name).toBe('NoSuchTagSet');
      const ok = await send('PUT', `/${Bucket}`, { query: { tagging: '' }, body: tagging, headers: { 'x-amz-checksum-crc32': checksumOf('CRC32', tagging) } });
      expect(ok.status).toBe(204);
      expect((await s3.send(new GetBucketTaggingCommand({ Bucket }))).TagSet).toEqual([{ Key: 'team', Value: 'red' }]);
      await s3.send(new DeleteBucketTaggingCommand({ Bucket }));
    });

    it('CompleteMultipartUpload checks its Content-MD5 against its body', async () => {
      const xml = '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>';
      const r = await send('POST', `/${Bucket}/mpu`, { query: { uploadId: 'AAAAAAAAAAAAAAAAAAAAAA' }, body: xml, headers: { 'content-md5': md5Of('other') } });
      expect(r.status).toBe(400);
      expect(errorCode(r.text)).toBe('BadDigest');
    });
  });

  it('a wrong signature is SignatureDoesNotMatch', async () => {
    const r = await signedRequest(gw.endpoint, { accessKeyId: gw.credentials.accessKeyId, secretAccessKey: 'wrong-secret-000000000000' }, 'GET', `/${Bucket}/keep`);
    expect(r.status).toBe(403);
    expect(errorCode(r.text)).toBe('SignatureDoesNotMatch');
  });

  it('a request signed for another region is AuthorizationHeaderMalformed naming the expected region', async () => {
    const elsewhere = new S3Client({ endpoint: gw.endpoint, region: 'xx-fake-1', credentials: gw.credentials, forcePathStyle: true });
    const err = await s3Error(elsewhere.send(new GetObjectCommand({ Bucket, Key: 'keep' })));
    expect(err.name).toBe('AuthorizationHeaderMalformed');
    expect(err.$metadata.httpStatusCode).toBe(400);
    expect((err as unknown as { Region?: string }).Region).toBe('us-east-1');
  });

  it('a URL presigned for another region is AuthorizationQueryParametersError', async () => {
    const elsewhere = new S3Client({ endpoint: gw.endpoint, region: 'xx-fake-1', credentials: gw.credentials, forcePathStyle: true });
    const res = await fetch(await getSignedUrl(elsewhere, new GetObjectCommand({ Bucket, Key: 'keep' }), { expiresIn: 60 }));
    expect(res.status).toBe(400);
    expect(errorCode(await res.text())).toBe('AuthorizationQueryParametersError');
  });

  it('an unknown access key is InvalidAccessKeyId', async () => {
    const r = await signedRequest(gw.endpoint, { accessKeyId: 'AKIANOSUCHKEY0000000', secretAccessKey: 'x'.repeat(40) }, 'GET', `/${Bucket}/keep`);
    expect(r.status).toBe(403);
    expect(errorCode(r.text)).toBe('InvalidAccessKeyId');
  });

  it('a request signed an hour ago is RequestTimeTooSkewed', async () => {
    const skewed = new S3Client({ endpoint: gw.endpoint, region: 'us-east-1', credentials: gw.credentials, forcePathStyle: true, systemClockOffset: -3600_000 });
    const err = await s3Error(skewed.send(new GetObjectCommand({ Bucket, Key: 'keep' })));
    expect(err.name).toBe('RequestTimeTooSkewed');
  });

  it('a CORS preflight is refused as S3 refuses it without a CORS configuration', async () => {
    const bare = await fetch(`${gw.endpoint}/${Bucket}/keep`, { method: 'OPTIONS' });
    expect(bare.status).toBe(400);
    expect(errorCode(await bare.text())).toBe('BadRequest');
    const preflight = await fetch(`${gw.endpoint}/${Bucket}/keep`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(403);
    expect(errorCode(await preflight.text())).toBe('AccessDenied');
  });

  it('anonymous access to a private object is AccessDenied', async () => {
    const r = await fetch(`${gw.endpoint}/${Bucket}/keep`);
    expect(r.status).toBe(403);
    expect(errorCode(await r.text())).toBe('AccessDenied');
  });

  it('a bad bucket name is InvalidBucketName', async () => {
    const r = await send('PUT', '/Bad_Bucket_Name');
    expect(r.status).toBe(400);
    expect(errorCode(r.text)).toBe('InvalidBucketName');
  });

  it('a key over 1024 bytes is KeyTooLongError', async () => {
    const err = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'k'.repeat(1025), Body: 'x' })));
    expect(err.name).toBe('KeyTooLongError');
    const multibyte = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'é'.repeat(513), Body: 'x' })));
    expect(multibyte.name).toBe('KeyTooLongError');
  });

  it.each(['0', '10001', 'abc', '-1'])('part number %s is InvalidArgument', async (partNumber) => {
    const r = await send('PUT', `/${Bucket}/mp`, { query: { partNumber, uploadId: 'whatever' }, body: 'x' });
    expect(r.status).toBe(400);
    expect(errorCode(r.text)).toBe('InvalidArgument');
  });

  it('an unsatisfiable range is InvalidRange (416)', async () => {
    const err = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'keep', Range: 'bytes=100-200' })));
    expect(err.name).toBe('InvalidRange');
    expect(err.$metadata.httpStatusCode).toBe(416);
  });

  it('a PUT without Content-Length is MissingContentLength (411)', async () => {
    const url = new URL(gw.endpoint);
    const http = await import('http');
    const { SignatureV4 } = await import('@smithy/signature-v4');
    const { Sha256 } = await import('@aws-crypto/sha256-js');
    const signer = new SignatureV4({ credentials: gw.credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
    const signed = await signer.sign({
      method: 'PUT',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: `/${Bucket}/no-length`,
      headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    });
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'PUT', path: `/${Bucket}/no-length`, headers: { ...signed.headers, 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end('some bytes');
    });
    expect(status.status).toBe(411);
    expect(errorCode(status.body)).toBe('MissingContentLength');
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'no-length' })))).name).toBe('NoSuchKey');
  });

  it('an unknown versioning status is MalformedXML', async () => {
    const r = await send('PUT', `/${Bucket}`, { query: { versioning: '' }, body: '<VersioningConfiguration><Status>Sometimes</Status></VersioningConfiguration>' });
    expect(r.status).toBe(400);
    expect(errorCode(r.text)).toBe('MalformedXML');
  });
});
