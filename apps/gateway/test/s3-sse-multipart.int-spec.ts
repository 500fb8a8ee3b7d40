import { createHash } from 'crypto';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketEncryptionCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { createPresignedPost, PresignedPostOptions } from '@aws-sdk/s3-presigned-post';
import type { CassandraClient } from '@ostore/shared/cassandra';
import type { GatewayUnderTest } from '@ostore/testing';
import { admin, setQuota, UsageAnswer } from './quota-helpers';
import { bodyBytes, errorCode, s3Error } from './s3-test-helpers';
import { blockFiles, copySource, customer, markedBody, masterKeyEntry, startSseGateway } from './sse-test-helpers';

const MiB = 2 ** 20;
const K1 = masterKeyEntry('k1');

/**
 * Server-side encryption of multipart uploads and browser POST uploads against the real stack:
 * SSE-S3 asked for or from the bucket's default, SSE-C with the customer key on every part (and
 * UploadPartCopy's source key), what the responses say, reads whole, in ranges across part
 * boundaries and by part number, what the block files hold (never the plaintext), the sizes S3
 * reports and the quota ledger counts (the plaintext's), GetObjectAttributes asking for the key, and
 * the re-wrap of SSE-S3 records after a master-key rotation (admin API).
 */
describe('server-side encryption of multipart and POST uploads', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let db: CassandraClient;
  const Bucket = 'sse-mpu';

  let stop: () => Promise<unknown>;

  beforeAll(async () => {
    ({ gw, db, stop } = await startSseGateway('sse-mpu', Bucket, { S3_SSE_MASTER_KEYS: K1 }));
    s3 = gw.client();
  }, 600_000);
  afterAll(() => stop?.());

  const get = async (Bucket: string, Key: string, extra: object = {}) => {
    const r = await s3.send(new GetObjectCommand({ Bucket, Key, ...extra }));
    return { ...r, bytes: await bodyBytes(r.Body) };
  };
  const sseOf = async (name: string) =>
    (await db.execute('SELECT sse, name FROM version_meta')).rows.find((r) => r['name'] === name)?.['sse'] as string | undefined;
  const noPlaintextOnDisk = async (marker: string) => {
    const files = await blockFiles(gw.blockDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(f.bytes.includes(marker)).toBe(false);
  };
  /** Uploads `parts` into a new upload made with `create` (SSE parameters), each part with `partSse`; returns the completion. */
  const multipart = async (bucket: string, Key: string, parts: Buffer[], create: object = {}, partSse: object = {}) => {
    const { UploadId, ...created } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key, ...create }));
    const done = [];
    for (const [i, Body] of parts.entries()) {
      const r = await s3.send(new UploadPartCommand({ Bucket: bucket, Key, UploadId, PartNumber: i + 1, Body, ...partSse }));
      done.push({ PartNumber: i + 1, ETag: r.ETag, r });
    }
    const completed = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId, MultipartUpload: { Parts: done.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) } }),
    );
    return { created, parts: done.map((d) => d.r), completed };
  };
  const reads = async (bucket: string, Key: string, whole: Buffer, sse: object = {}) => {
    expect((await get(bucket, Key, sse)).bytes.equals(whole)).toBe(true);
    const boundary = 5 * MiB;
    for (const [start, end] of [[0, 99], [boundary - 70_000, boundary + 70_000], [boundary, boundary], [whole.length - 5, whole.length - 1], [123_457, boundary + 65_536 + 5]]) {
      const r = await get(bucket, Key, { ...sse, Range: `bytes=${start}-${end}` });
      expect(r.ContentRange).toBe(`bytes ${start}-${end}/${whole.length}`);
      expect(r.bytes.equals(whole.subarray(start, end + 1))).toBe(true);
    }
    const part2 = await get(bucket, Key, { ...sse, PartNumber: 2 });
    expect([part2.PartsCount, part2.ContentLength]).toEqual([2, whole.length - boundary]);
    expect(part2.bytes.equals(whole.subarray(boundary))).toBe(true);
    expect((await get(bucket, Key, { ...sse, PartNumber: 1 })).bytes.equals(whole.subarray(0, boundary))).toBe(true);
  };

  it('a multipart upload into a bucket with default encryption is stored sealed and reported as SSE-S3', async () => {
    const B = 'sse-mpu-default';
    await s3.send(new CreateBucketCommand({ Bucket: B }));
    await s3.send(new PutBucketEncryptionCommand({ Bucket: B, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] } }));
    const parts = [markedBody(5 * MiB, 'MPU-DEFAULT'), markedBody(300 * 1024 + 7, 'MPU-DEFAULT')];
    const { created, parts: uploaded, completed } = await multipart(B, 'by-default', parts);
    expect(created.ServerSideEncryption).toBe('AES256');
    expect(uploaded.map((p) => p.ServerSideEncryption)).toEqual(['AES256', 'AES256']);
    // the part ETags stay the parts' MD5s for SSE-S3, as on S3
    expect(uploaded[0].ETag).toBe(`"${createHash('md5').update(parts[0]).digest('hex')}"`);
    expect(completed.ServerSideEncryption).toBe('AES256');
    expect((await s3.send(new HeadObjectCommand({ Bucket: B, Key: 'by-default' }))).ServerSideEncryption).toBe('AES256');
    expect(await sseOf('by-default')).toMatch(/"alg":"AES256","kid":"k1"/);
    await noPlaintextOnDisk('MPU-DEFAULT');
    await reads(B, 'by-default', Buffer.concat(parts));
  });

  it('SSE-S3 asked for at CreateMultipartUpload; UploadPartCopy from plain and SSE-C sources into it; sizes and the quota ledger are the plaintext ones', async () => {
    const Q = 'sse-mpu-quota';
    await s3.send(new CreateBucketCommand({ Bucket: Q }));
    await setQuota(gw, Q, { maxBytes: 100 * MiB });
    const first = markedBody(5 * MiB, 'MPU-COPY-PLAIN');
    const second = markedBody(200 * 1024 + 3, 'MPU-COPY-C');
    const c = customer();
    await s3.send(new PutObjectCommand({ Bucket, Key: 'copy-src-plain', Body: first }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'copy-src-c', Body: second, ...c }));
    const { UploadId, ServerSideEncryption } = await s3.send(new CreateMultipartUploadCommand({ Bucket: Q, Key: 'copied', ServerSideEncryption: 'AES256' }));
    expect(ServerSideEncryption).toBe('AES256');
    const p1 = await s3.send(new UploadPartCopyCommand({ Bucket: Q, Key: 'copied', UploadId, PartNumber: 1, CopySource: `${Bucket}/copy-src-plain` }));
    expect(p1.ServerSideEncryption).toBe('AES256');
    const noSourceKey = await s3Error(s3.send(new UploadPartCopyCommand({ Bucket: Q, Key: 'copied', UploadId, PartNumber: 2, CopySource: `${Bucket}/copy-src-c` })));
    expect([noSourceKey.name, noSourceKey.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    const wrongSourceKey = await s3Error(
      s3.send(new UploadPartCopyCommand({ Bucket: Q, Key: 'copied', UploadId, PartNumber: 2, CopySource: `${Bucket}/copy-src-c`, ...copySource(customer()) })),
    );
    expect(wrongSourceKey.$metadata.httpStatusCode).toBe(403);
    const p2 = await s3.send(new UploadPartCopyCommand({ Bucket: Q, Key: 'copied', UploadId, PartNumber: 2, CopySource: `${Bucket}/copy-src-c`, ...copySource(c) }));
    const listed = await s3.send(new ListPartsCommand({ Bucket: Q, Key: 'copied', UploadId }));
    expect(listed.Parts?.map((p) => p.Size)).toEqual([first.length, second.length]);
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: Q,
        Key: 'copied',
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.CopyPartResult!.ETag }, { PartNumber: 2, ETag: p2.CopyPartResult!.ETag }] },
      }),
    );
    const whole = Buffer.concat([first, second]);
    expect((await get(Q, 'copied')).bytes.equals(whole)).toBe(true);
    expect((await get(Q, 'copied', { Range: `bytes=${5 * MiB - 10}-${5 * MiB + 9}` })).bytes.equals(whole.subarray(5 * MiB - 10, 5 * MiB + 10))).toBe(true);
    await noPlaintextOnDisk('MPU-COPY-C');
    // the plaintext copy source is stored plain (as asked); the copy must not have shared its blocks
    const listing = await s3.send(new ListObjectsV2Command({ Bucket: Q }));
    expect(listing.Contents?.map((o) => [o.Key, o.Size])).toEqual([['copied', whole.length]]);
    const recount = await admin<UsageAnswer>(gw, 'POST', `/admin/buckets/${Q}/quota/recount`);
    expect(recount).toMatchObject({ bytes: whole.length, objects: 1, drift: { bytes: 0, objects: 0 } });
  });

  it('SSE-C: the customer key on every part (missing 400, another 400), then GET, ranges, partNumber and GetObjectAttributes need it', async () => {
    const a = customer();
    const parts = [markedBody(5 * MiB, 'MPU-SSE-C'), markedBody(100 * 1024 + 1, 'MPU-SSE-C')];
    const { UploadId, ...created } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'customer', ...a }));
    expect([created.SSECustomerAlgorithm, created.SSECustomerKeyMD5]).toEqual(['AES256', a.SSECustomerKeyMD5]);
    const missing = await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'customer', UploadId, PartNumber: 1, Body: parts[0] })));
    expect([missing.name, missing.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    const other = await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'customer', UploadId, PartNumber: 1, Body: parts[0], ...customer() })));
    expect([other.name, other.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    expect((await s3.send(new ListPartsCommand({ Bucket, Key: 'customer', UploadId }))).Parts ?? []).toEqual([]);
    const etags = [];
    for (const [i, Body] of parts.entries()) {
      const r = await s3.send(new UploadPartCommand({ Bucket, Key: 'customer', UploadId, PartNumber: i + 1, Body, ...a }));
      expect([r.SSECustomerAlgorithm, r.SSECustomerKeyMD5]).toEqual(['AES256', a.SSECustomerKeyMD5]);
      // not the plaintext's MD5 (as on S3)
      expect(r.ETag).not.toBe(`"${createHash('md5').update(Body).digest('hex')}"`);
      etags.push({ PartNumber: i + 1, ETag: r.ETag });
    }
    expect((await s3.send(new ListPartsCommand({ Bucket, Key: 'customer', UploadId }))).Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([
      [1, parts[0].length],
      [2, parts[1].length],
    ]);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'customer', UploadId, MultipartUpload: { Parts: etags } }));
    await noPlaintextOnDisk('MPU-SSE-C');
    const stored = await sseOf('customer');
    expect(stored).toMatch(/"alg":"SSE-C"/);
    expect(stored).not.toContain(a.SSECustomerKey);

    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'customer' })))).$metadata.httpStatusCode).toBe(400);
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'customer', ...customer() })))).$metadata.httpStatusCode).toBe(403);
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'customer', PartNumber: 2 })))).$metadata.httpStatusCode).toBe(400);
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'customer', ...a }));
    expect([head.SSECustomerAlgorithm, head.SSECustomerKeyMD5, head.ContentLength]).toEqual(['AES256', a.SSECustomerKeyMD5, parts[0].length + parts[1].length]);
    await reads(Bucket, 'customer', Buffer.concat(parts), a);

    const attributes = (extra: object) =>
      s3.send(new GetObjectAttributesCommand({ Bucket, Key: 'customer', ObjectAttributes: ['ObjectSize', 'ObjectParts'], ...extra }));
    const noKey = await s3Error(attributes({}));
    expect([noKey.name, noKey.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    expect((await s3Error(attributes(customer()))).$metadata.httpStatusCode).toBe(403);
    const attrs = await attributes(a);
    expect(attrs.ObjectSize).toBe(parts[0].length + parts[1].length);
    expect(attrs.ObjectParts?.Parts?.map((p) => p.Size)).toEqual([parts[0].length, parts[1].length]);
  });

  it('a key for a plain upload is refused, and so is asking for SSE-S3 and SSE-C at once', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'plain-upload' }));
    const keyed = await s3Error(s3.send(new UploadPartCommand({ Bucket, Key: 'plain-upload', UploadId, PartNumber: 1, Body: 'x', ...customer() })));
    expect([keyed.name, keyed.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    const both = await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'both', ServerSideEncryption: 'AES256', ...customer() })));
    expect([both.name, both.$metadata.httpStatusCode]).toEqual(['InvalidArgument', 400]);
  });

  describe('browser POST uploads', () => {
    const presignedPost = (bucket: string, key: string, fields: Record<string, string> = {}) =>
      createPresignedPost(s3 as unknown as Parameters<typeof createPresignedPost>[0], {
        Bucket: bucket,
        Key: key,
        Conditions: [] as NonNullable<PresignedPostOptions['Conditions']>,
        Fields: fields,
        Expires: 300,
      });
    const post = async (bucket: string, key: string, file: Buffer, fields: Record<string, string> = {}) => {
      const { url, fields: signed } = await presignedPost(bucket, key, fields);
      const form = new FormData();
      for (const [k, v] of Object.entries(signed)) form.append(k, v);
      form.append('file', new Blob([file]), 'f.bin');
      return fetch(url, { method: 'POST', body: form, redirect: 'manual' });
    };

    it('honour the bucket default encryption and the x-amz-server-side-encryption field', async () => {
      const B = 'sse-post-default';
      await s3.send(new CreateBucketCommand({ Bucket: B }));
      await s3.send(new PutBucketEncryptionCommand({ Bucket: B, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] } }));
      const byDefault = markedBody(200 * 1024, 'POST-DEFAULT');
      const res = await post(B, 'posted', byDefault);
      expect([res.status, res.headers.get('x-amz-server-side-encryption')]).toEqual([204, 'AES256']);
      expect((await s3.send(new HeadObjectCommand({ Bucket: B, Key: 'posted' }))).ServerSideEncryption).toBe('AES256');
      expect((await get(B, 'posted')).bytes.equals(byDefault)).toBe(true);

      const asked = markedBody(150 * 1024, 'POST-FIELD');
      const res2 = await post(Bucket, 'posted-field', asked, { 'x-amz-server-side-encryption': 'AES256' });
      expect([res2.status, res2.headers.get('x-amz-server-side-encryption')]).toEqual([204, 'AES256']);
      expect(await sseOf('posted-field')).toMatch(/"alg":"AES256"/);
      await noPlaintextOnDisk('POST-DEFAULT');
      await noPlaintextOnDisk('POST-FIELD');
      expect((await get(Bucket, 'posted-field')).bytes.equals(asked)).toBe(true);
      const kms = await post(Bucket, 'posted-kms', asked, { 'x-amz-server-side-encryption': 'aws:kms' });
      expect([kms.status, errorCode(await kms.text())]).toEqual([501, 'NotImplemented']);
    });

    it('SSE-C form fields encrypt with the customer key: GET needs it', async () => {
      const c = customer();
      const file = markedBody(100 * 1024, 'POST-SSE-C');
      const fields = {
        'x-amz-server-side-encryption-customer-algorithm': c.SSECustomerAlgorithm,
        'x-amz-server-side-encryption-customer-key': c.SSECustomerKey,
        'x-amz-server-side-encryption-customer-key-md5': c.SSECustomerKeyMD5,
      };
      const res = await post(Bucket, 'posted-c', file, fields);
      expect([res.status, res.headers.get('x-amz-server-side-encryption-customer-key-md5')]).toEqual([204, c.SSECustomerKeyMD5]);
      await noPlaintextOnDisk('POST-SSE-C');
      expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'posted-c' })))).$metadata.httpStatusCode).toBe(400);
      expect((await get(Bucket, 'posted-c', c)).bytes.equals(file)).toBe(true);
    });
  });

  it('re-wrap after a master-key rotation: records move to the new key, bodies stay, and the old key can go', async () => {
    const R = 'sse-rewrap';
    await s3.send(new CreateBucketCommand({ Bucket: R }));
    const plain = markedBody(90 * 1024, 'REWRAP');
    await s3.send(new PutObjectCommand({ Bucket: R, Key: 'simple', Body: plain, ServerSideEncryption: 'AES256' }));
    await s3.send(new PutObjectCommand({ Bucket: R, Key: 'small', Body: 'inline body', ServerSideEncryption: 'AES256' }));
    const parts = [markedBody(5 * MiB, 'REWRAP-MPU'), markedBody(1000, 'REWRAP-MPU')];
    await multipart(R, 'multi', parts, { ServerSideEncryption: 'AES256' });
    const c = customer();
    await s3.send(new PutObjectCommand({ Bucket: R, Key: 'customer', Body: plain, ...c }));
    await s3.send(new PutObjectCommand({ Bucket: R, Key: 'plain', Body: plain }));
    // read once, so the rows' metadata snapshots are the ones a reader would use
    expect((await get(R, 'simple')).bytes.equals(plain)).toBe(true);

    const K2 = masterKeyEntry('k2');
    await gw.restart({ S3_SSE_MASTER_KEYS: `${K2},${K1}` });
    s3 = gw.client();
    const answer = await admin<{ versions: number; rewrapped: number; currentKeyId: string }>(gw, 'POST', `/admin/buckets/${R}/sse/rewrap`);
    expect(answer).toMatchObject({ versions: 5, rewrapped: 3, currentKeyId: 'k2' });
    for (const name of ['simple', 'small', 'multi']) expect(await sseOf(name)).toMatch(/"kid":"k2"/);
    expect(await admin<{ rewrapped: number }>(gw, 'POST', `/admin/buckets/${R}/sse/rewrap`)).toMatchObject({ rewrapped: 0 });

    await gw.restart({ S3_SSE_MASTER_KEYS: K2 });
    s3 = gw.client();
    expect((await get(R, 'simple')).bytes.equals(plain)).toBe(true);
    expect((await get(R, 'small')).bytes.toString()).toBe('inline body');
    expect((await get(R, 'multi', { Range: `bytes=${5 * MiB - 5}-${5 * MiB + 4}` })).bytes.equals(Buffer.concat(parts).subarray(5 * MiB - 5, 5 * MiB + 5))).toBe(true);
    expect((await get(R, 'customer', c)).bytes.equals(plain)).toBe(true);
  }, 600_000);
});
