import { randomBytes } from 'crypto';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetBucketAnalyticsConfigurationCommand,
  GetBucketEncryptionCommand,
  GetBucketIntelligentTieringConfigurationCommand,
  GetBucketInventoryConfigurationCommand,
  GetBucketMetricsConfigurationCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketAnalyticsConfigurationsCommand,
  ListBucketIntelligentTieringConfigurationsCommand,
  ListBucketInventoryConfigurationsCommand,
  ListBucketMetricsConfigurationsCommand,
  ListObjectsV2Command,
  PutBucketEncryptionCommand,
  PutBucketMetricsConfigurationCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { RawConnection, requestHead, signedHeaders } from './raw-connection';
import { bodyText, errorCode, s3Error } from './s3-test-helpers';

const SSE_C = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: randomBytes(32).toString('base64') };

/**
 * What the gateway cannot do it refuses with S3's error instead of ignoring: encryption and
 * Object Lock headers, an object over 5 GiB, a malformed URI, a
 * response override that could not be a header. Nothing is stored by a refused request.
 */
describe('honest refusals', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'refusals';
  const stored = async (Key: string) => (await s3.send(new ListObjectsV2Command({ Bucket, Prefix: Key }))).KeyCount ?? 0;

  beforeAll(async () => {
    gw = await startGateway('refusals');
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'plain', Body: 'plain text' }));
  });
  afterAll(() => gw?.stop());

  describe('encryption and Object Lock headers', () => {
    it.each([
      ['SSE-S3 (AES256) on a gateway without a master key', { ServerSideEncryption: 'AES256' as const }],
      ['SSE-KMS', { ServerSideEncryption: 'aws:kms' as const, SSEKMSKeyId: 'alias/mine' }],
      ['SSE-KMS DSSE', { ServerSideEncryption: 'aws:kms:dsse' as const }],
    ])('PutObject with %s is NotImplemented and stores nothing', async (_label, sse) => {
      const err = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'sse/put', Body: 'secret', ...sse })));
      expect(err.name).toBe('NotImplemented');
      expect(err.$metadata.httpStatusCode).toBe(501);
      expect(await stored('sse/put')).toBe(0);
    });

    it('SSE-C over plain HTTP is InvalidRequest (as on AWS; S3_SSE_C_ALLOW_HTTP is off) and stores nothing', async () => {
      const err = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'sse/put', Body: 'secret', ...SSE_C })));
      expect([err.name, err.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
      expect((await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'sse/copy', CopySource: `${Bucket}/plain`, ...SSE_C })))).name).toBe('InvalidRequest');
      expect(await stored('sse/')).toBe(0);
    });

    it('multipart SSE-S3 without a master key and SSE-KMS are NotImplemented; multipart SSE-C over plain HTTP is InvalidRequest', async () => {
      expect((await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sse/mpu', ServerSideEncryption: 'AES256' })))).name).toBe('NotImplemented');
      expect((await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sse/mpu', ServerSideEncryption: 'aws:kms' })))).name).toBe('NotImplemented');
      expect((await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sse/mpu', ...SSE_C })))).name).toBe('InvalidRequest');
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sse/mpu' }));
      expect((await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'sse/mpu', UploadId, PartNumber: 1, Body: 'part', ...SSE_C })))).name).toBe('InvalidRequest');
      expect((await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'sse/copy', CopySource: `${Bucket}/plain`, ServerSideEncryption: 'aws:kms' })))).name).toBe('NotImplemented');
      expect(await stored('sse/copy')).toBe(0);
    });

    it('a default encryption (SSE-S3) on a gateway without a master key is NotImplemented and not set, so PUTs keep working', async () => {
      const config = { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' as const } }] };
      const err = await s3Error(s3.send(new PutBucketEncryptionCommand({ Bucket, ServerSideEncryptionConfiguration: config })));
      expect([err.name, err.$metadata.httpStatusCode]).toEqual(['NotImplemented', 501]);
      expect((await s3Error(s3.send(new GetBucketEncryptionCommand({ Bucket })))).name).toBe('ServerSideEncryptionConfigurationNotFoundError');
      await s3.send(new PutObjectCommand({ Bucket, Key: 'after-default', Body: 'plain' }));
      expect(await stored('after-default')).toBe(1);
    });

    it('Object Lock headers on a bucket without Object Lock are InvalidRequest', async () => {
      const lock = { ObjectLockMode: 'COMPLIANCE' as const, ObjectLockRetainUntilDate: new Date(Date.now() + 86400_000) };
      const put = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'locked', Body: 'x', ...lock })));
      expect(put.name).toBe('InvalidRequest');
      expect(put.$metadata.httpStatusCode).toBe(400);
      expect((await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'locked', Body: 'x', ObjectLockLegalHoldStatus: 'ON' })))).name).toBe('InvalidRequest');
      expect((await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'locked', ...lock })))).name).toBe('InvalidRequest');
      expect((await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'locked', CopySource: `${Bucket}/plain`, ...lock })))).name).toBe('InvalidRequest');
      expect(await stored('locked')).toBe(0);
    });
  });

  describe('limits', () => {
    it('a PutObject announcing more than 5 GiB is EntityTooLarge before any of its body is sent', async () => {
      const path = `/${Bucket}/huge`;
      const headers = await signedHeaders(gw, 'PUT', path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': String(6 * 1024 ** 3) });
      const c = await new RawConnection(gw.endpoint).connected();
      c.socket.write(requestHead('PUT', path, headers));
      await c.closedWithin(10_000);
      expect(c.received).toMatch(/^HTTP\/1\.1 400 /);
      expect(errorCode(c.received)).toBe('EntityTooLarge');
      expect(c.received).toContain('<MaxSizeAllowed>5368709120</MaxSizeAllowed>');
    });

    it.each(['%FF', '%zz', 'a%'])('a key with invalid percent-encoding (%s) is InvalidURI', async (bad) => {
      const signed = await signedHeaders(gw, 'GET', `/${Bucket}/${bad}`, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' });
      for (const headers of [{}, Object.fromEntries(Object.entries(signed).filter(([k]) => k !== 'host'))]) {
        const res = await fetch(`${gw.endpoint}/${Bucket}/${bad}`, { headers });
        expect(res.status).toBe(400);
        expect(errorCode(await res.text())).toBe('InvalidURI');
      }
    });

    it('a presigned response-content-type (or other override) with CR/LF is InvalidArgument, not a server error', async () => {
      for (const override of [{ ResponseContentType: 'text/html\r\nSet-Cookie: a=b' }, { ResponseContentDisposition: 'attachment\nx' }]) {
        const url = await getSignedUrl(s3, new GetObjectCommand({ Bucket, Key: 'plain', ...override }), { expiresIn: 60 });
        const res = await fetch(url);
        expect(res.status).toBe(400);
        expect(errorCode(await res.text())).toBe('InvalidArgument');
      }
      const fine = await s3.send(new GetObjectCommand({ Bucket, Key: 'plain', ResponseContentType: 'text/x-fine' }));
      expect(fine.ContentType).toBe('text/x-fine');
      expect(await bodyText(fine.Body)).toBe('plain text');
      expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'plain' }))).ContentLength).toBe(10);
    });
  });

  describe('bucket configuration sets it cannot store (analytics, metrics, inventory, Intelligent-Tiering)', () => {
    it('lists none and finds none, as S3 does for a bucket without any, and refuses to store one', async () => {
      const put = await s3Error(s3.send(new PutBucketMetricsConfigurationCommand({ Bucket, Id: 'all', MetricsConfiguration: { Id: 'all' } })));
      expect([put.name, put.$metadata.httpStatusCode]).toEqual(['NotImplemented', 501]);
      const analytics = await s3.send(new ListBucketAnalyticsConfigurationsCommand({ Bucket }));
      const metrics = await s3.send(new ListBucketMetricsConfigurationsCommand({ Bucket }));
      const inventory = await s3.send(new ListBucketInventoryConfigurationsCommand({ Bucket }));
      const tiering = await s3.send(new ListBucketIntelligentTieringConfigurationsCommand({ Bucket }));
      for (const list of [analytics, metrics, inventory, tiering]) {
        expect(list.$metadata.httpStatusCode).toBe(200);
        expect(list.IsTruncated).toBe(false);
      }
      expect(analytics.AnalyticsConfigurationList ?? []).toEqual([]);
      expect(metrics.MetricsConfigurationList ?? []).toEqual([]);
      expect(inventory.InventoryConfigurationList ?? []).toEqual([]);
      expect(tiering.IntelligentTieringConfigurationList ?? []).toEqual([]);
      const gets = [
        s3.send(new GetBucketAnalyticsConfigurationCommand({ Bucket, Id: 'a' })),
        s3.send(new GetBucketMetricsConfigurationCommand({ Bucket, Id: 'all' })),
        s3.send(new GetBucketInventoryConfigurationCommand({ Bucket, Id: 'i' })),
        s3.send(new GetBucketIntelligentTieringConfigurationCommand({ Bucket, Id: 't' })),
      ];
      for (const get of gets) {
        const err = await s3Error(get);
        expect([err.name, err.$metadata.httpStatusCode]).toEqual(['NoSuchConfiguration', 404]);
      }
      const missing = await s3Error(s3.send(new ListBucketMetricsConfigurationsCommand({ Bucket: 'no-such-bucket-here' })));
      expect(missing.name).toBe('NoSuchBucket');
    });
  });
});
