import { randomBytes } from 'crypto';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { s3Error } from './s3-test-helpers';

const SSE_C = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: randomBytes(32).toString('base64') };

/**
 * What the gateway cannot do it refuses with S3's error instead of ignoring: encryption and
 * Object Lock headers. Nothing is stored by a refused request.
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
      ['SSE-S3 (AES256)', { ServerSideEncryption: 'AES256' as const }],
      ['SSE-KMS', { ServerSideEncryption: 'aws:kms' as const, SSEKMSKeyId: 'alias/mine' }],
      ['SSE-C', SSE_C],
    ])('PutObject with %s is NotImplemented and stores nothing', async (_label, sse) => {
      const err = await s3Error(s3.send(new PutObjectCommand({ Bucket, Key: 'sse/put', Body: 'secret', ...sse })));
      expect(err.name).toBe('NotImplemented');
      expect(err.$metadata.httpStatusCode).toBe(501);
      expect(await stored('sse/put')).toBe(0);
    });

    it('CreateMultipartUpload, UploadPart and CopyObject with encryption are NotImplemented', async () => {
      expect((await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sse/mpu', ServerSideEncryption: 'AES256' })))).name).toBe('NotImplemented');
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'sse/mpu' }));
      expect((await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'sse/mpu', UploadId, PartNumber: 1, Body: 'part', ...SSE_C })))).name).toBe('NotImplemented');
      expect((await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'sse/copy', CopySource: `${Bucket}/plain`, ...SSE_C })))).name).toBe('NotImplemented');
      expect((await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'sse/copy', CopySource: `${Bucket}/plain`, ServerSideEncryption: 'aws:kms' })))).name).toBe('NotImplemented');
      expect(await stored('sse/copy')).toBe(0);
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
});
