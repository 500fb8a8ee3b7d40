import http from 'http';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectVersionsCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { GatewayUnderTest, startGateway, waitFor } from '@ostore/testing';
import { bodyBytes, countFiles, s3Error } from './s3-test-helpers';

const MiB = 1024 * 1024;

/** Starts a signed PUT whose body trickles in, and resolves once `sentBytes` have been written (the request stays open). */
async function startSlowPut(gw: GatewayUnderTest, path: string, totalBytes: number, sentBytes: number): Promise<http.ClientRequest> {
  const url = new URL(gw.endpoint);
  const signer = new SignatureV4({ credentials: gw.credentials, region: 'us-east-1', service: 's3', sha256: Sha256, uriEscapePath: false });
  const signed = await signer.sign({
    method: 'PUT',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path,
    headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': String(totalBytes) },
  });
  const req = http.request({ host: url.hostname, port: url.port, method: 'PUT', path, headers: signed.headers });
  req.on('error', () => undefined);
  req.write(Buffer.alloc(sentBytes, 1));
  return req;
}

describe('faults: a gateway killed mid-upload leaves nothing visible and no orphaned block data', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'faults';
  let blockDir: string;

  beforeAll(async () => {
    gw = await startGateway('faults', {
      BLOCK_SIZE_BYTES: String(1 * MiB),
      BLOCK_GC_INTERVAL_SECONDS: '1',
      BLOCK_GC_GRACE_SECONDS: '2',
    });
    blockDir = gw.blockDir;
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
  });
  afterAll(() => gw?.stop());

  it('a client that disconnects mid-upload leaves nothing visible, and its blocks are reclaimed', async () => {
    const req = await startSlowPut(gw, `/${Bucket}/abandoned`, 8 * MiB, 3 * MiB);
    await waitFor('blocks of the upload on disk', async () => (countFiles(blockDir) >= 2 ? true : undefined), 30000);
    req.destroy();
    await waitFor('blocks reclaimed', async () => (countFiles(blockDir) === 0 ? true : undefined), 60000);
    expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'abandoned' })))).$metadata.httpStatusCode).toBe(404);
  });

  it('SIGKILL during a PUT: after restart the key does not exist and GC reclaims every block', async () => {
    const req = await startSlowPut(gw, `/${Bucket}/killed`, 8 * MiB, 4 * MiB);
    await waitFor('blocks of the upload on disk', async () => (countFiles(blockDir) >= 3 ? true : undefined), 30000);
    gw.process.signal('SIGKILL');
    await gw.process.waitForExit(10000);
    req.destroy();
    expect(countFiles(blockDir)).toBeGreaterThan(0);
    await gw.restart();
    expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'killed' })))).$metadata.httpStatusCode).toBe(404);
    expect((await s3.send(new ListObjectVersionsCommand({ Bucket, Prefix: 'killed' }))).Versions ?? []).toEqual([]);
    await waitFor('orphaned blocks reclaimed by GC', async () => (countFiles(blockDir) === 0 ? true : undefined), 60000);
  });

  it('SIGKILL during CompleteMultipartUpload: the object is either whole or absent (and completable), never half-built', async () => {
    const parts = [Buffer.alloc(5 * MiB, 3), Buffer.alloc(2 * MiB, 4)];
    for (const delayMs of [0, 5, 20, 60]) {
      const Key = `mp-killed-${delayMs}`;
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
      const etags = [];
      for (let i = 0; i < parts.length; i++) etags.push((await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: i + 1, Body: parts[i] }))).ETag!);
      const complete = new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } });
      const pending = s3.send(complete).catch(() => undefined);
      await new Promise((r) => setTimeout(r, delayMs));
      gw.process.signal('SIGKILL');
      await gw.process.waitForExit(10000);
      await pending;
      await gw.restart();
      s3 = gw.client();
      const head = await s3.send(new HeadObjectCommand({ Bucket, Key })).catch(() => undefined);
      if (!head) {
        const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
        expect(uploads.Uploads?.map((u) => u.UploadId)).toEqual([UploadId]);
        await s3.send(complete);
      }
      const body = await bodyBytes((await s3.send(new GetObjectCommand({ Bucket, Key }))).Body);
      expect(body.equals(Buffer.concat(parts))).toBe(true);
      expect((await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }))).Uploads ?? []).toEqual([]);
      await s3.send(new DeleteObjectCommand({ Bucket, Key }));
    }
    await waitFor('every block released after the objects are deleted', async () => (countFiles(blockDir) === 0 ? true : undefined), 60000);
  });
});
