import { execFile } from 'child_process';
import { resolve } from 'path';
import { promisify } from 'util';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { GatewayUnderTest, startGateway, waitFor } from '@ostore/testing';
import { errorCode, signedRequest } from './s3-test-helpers';
import { admin, heldBytes, metricWith, MiB, outcome, setQuota, uploadConcurrently, usageOf, UsageAnswer } from './quota-helpers';

/**
 * Hard quotas through one real gateway process and the AWS SDK v3: the live ledger admits the
 * declared size before the body is stored, so concurrent uploaders never push the bucket past its
 * quota; deletes make room at once; every write operation is covered; the admin API and CLI. The
 * gateway runs with no exact headroom, so all of it goes through the cheap path (one shared ledger
 * read per interval, changes summed into one update per interval); quota-gateways.int-spec.ts runs
 * the defaults, where a 10 MiB quota is all exact headroom.
 */
describe('bucket quotas (one gateway)', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;

  beforeAll(async () => {
    // no exact headroom: every admission takes the cheap path (shared reads, summed ledger updates),
    // which must keep one gateway exact on its own
    gw = await startGateway('quota', { QUOTA_EXACT_HEADROOM_PERCENT: '0', QUOTA_EXACT_HEADROOM_BYTES: '0', QUOTA_EXACT_HEADROOM_OBJECTS: '0' });
    s3 = gw.client();
  });
  afterAll(() => gw?.stop());

  it('a 10 MiB quota with 32 concurrent uploaders never holds more than 10 MiB, and fills to exactly 10 MiB', async () => {
    const Bucket = 'quota-race';
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutBucketVersioningCommand({ Bucket, VersioningConfiguration: { Status: 'Enabled' } }));
    const set = await setQuota(gw, Bucket, { maxBytes: 10 * MiB });
    expect(set).toMatchObject({ bytes: 0, objects: 0, quota: { maxBytes: 10 * MiB }, drift: { bytes: 0, objects: 0 } });

    const { accepted, outcomes } = await uploadConcurrently([s3], Bucket, {
      uploaders: 32,
      attempts: 6,
      sizes: [64 * 1024, 200 * 1024, 256 * 1024, 512 * 1024 + 3],
      prefix: 'race',
    });
    const sum = accepted.reduce((a, b) => a + b.size, 0);
    expect([...outcomes.keys()].sort()).toEqual(['403 QuotaExceeded', 'ok']);
    const held = await heldBytes(s3, Bucket);
    expect(held).toEqual({ bytes: sum, objects: accepted.length });
    expect(held.bytes).toBeLessThanOrEqual(10 * MiB);
    expect(await usageOf(gw, Bucket)).toMatchObject({ source: 'ledger', bytes: held.bytes, objects: held.objects });

    // nothing in flight now: exactly the free room is admitted, and not one byte more
    const room = 10 * MiB - held.bytes;
    await s3.send(new PutObjectCommand({ Bucket, Key: 'fill', Body: Buffer.alloc(room, 1) }));
    expect(await outcome(s3.send(new PutObjectCommand({ Bucket, Key: 'one-more', Body: Buffer.alloc(1) })))).toBe('403 QuotaExceeded');
    expect((await heldBytes(s3, Bucket)).bytes).toBe(10 * MiB);
    expect(await usageOf(gw, Bucket)).toMatchObject({ bytes: 10 * MiB, utilisation: { bytes: 1 } });
    expect(await metricWith(gw, 'ostore_quota_checks_total', { result: 'refused' })).toBeGreaterThanOrEqual(outcomes.get('403 QuotaExceeded')!);
    expect(await metricWith(gw, 'ostore_bucket_quota_utilisation_ratio', { bucket: Bucket, resource: 'bytes' })).toBe(1);

    // deleting a version (permanently) makes room within seconds
    const { Versions } = await s3.send(new ListObjectVersionsCommand({ Bucket, Prefix: 'fill' }));
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'fill', VersionId: Versions![0].VersionId }));
    await waitFor(
      'room after the delete',
      async () => ((await outcome(s3.send(new PutObjectCommand({ Bucket, Key: 'after-delete', Body: Buffer.alloc(room, 2) })))) === 'ok' ? true : undefined),
      5000,
      100,
    );
    expect((await heldBytes(s3, Bucket)).bytes).toBe(10 * MiB);
  });

  it('answers QuotaExceeded in S3 XML with HTTP 403, before storing the body', async () => {
    const Bucket = 'quota-xml';
    await s3.send(new CreateBucketCommand({ Bucket }));
    await setQuota(gw, Bucket, { maxBytes: 1000 });
    const res = await signedRequest(gw.endpoint, gw.credentials, 'PUT', `/${Bucket}/too-big`, { body: Buffer.alloc(1001, 7) });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/xml/);
    expect(errorCode(res.text)).toBe('QuotaExceeded');
    expect(res.text).toMatch(/<Message>The bucket quota \(1000 bytes\) would be exceeded by this request\.<\/Message>/);
    expect(res.text).toContain(`<BucketName>${Bucket}</BucketName>`);
    expect(res.text).toMatch(/<RequestId>[^<]+<\/RequestId>/);
    expect(await heldBytes(s3, Bucket)).toEqual({ bytes: 0, objects: 0 });
    const fits = await signedRequest(gw.endpoint, gw.credentials, 'PUT', `/${Bucket}/fits`, { body: Buffer.alloc(1000, 7) });
    expect(fits.status).toBe(200);
  });

  it('covers UploadPart, UploadPartCopy, CompleteMultipartUpload and CopyObject', async () => {
    const Bucket = 'quota-multipart';
    await s3.send(new CreateBucketCommand({ Bucket }));
    await setQuota(gw, Bucket, { maxBytes: 12 * MiB, maxObjects: 2 });
    const Key = 'big.bin';
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const part = (PartNumber: number, size: number) => s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: Buffer.alloc(size, PartNumber) }));
    const p1 = await part(1, 5 * MiB);
    const p2 = await part(2, 5 * MiB);
    // in-progress parts count: a third 5 MiB part would make 15 MiB
    expect(await outcome(part(3, 5 * MiB))).toBe('403 QuotaExceeded');
    expect((await usageOf(gw, Bucket)).bytes).toBe(10 * MiB);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }, { PartNumber: 2, ETag: p2.ETag }] } }));
    expect(await usageOf(gw, Bucket)).toMatchObject({ bytes: 10 * MiB, objects: 1 });

    // CopyObject of the 10 MiB object: 20 MiB > 12 MiB
    expect(await outcome(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy.bin', CopySource: `${Bucket}/${Key}` })))).toBe('403 QuotaExceeded');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'small', Body: Buffer.alloc(MiB, 1) }));
    expect(await usageOf(gw, Bucket)).toMatchObject({ bytes: 11 * MiB, objects: 2 });
    // UploadPartCopy of the small object still fits in bytes, of the big one not
    const second = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'second.bin' }));
    const copyPart = (CopySource: string, PartNumber: number) =>
      s3.send(new UploadPartCopyCommand({ Bucket, Key: 'second.bin', UploadId: second.UploadId, PartNumber, CopySource }));
    expect(await outcome(copyPart(`${Bucket}/${Key}`, 1))).toBe('403 QuotaExceeded');
    const copied = await copyPart(`${Bucket}/small`, 1);
    expect((await usageOf(gw, Bucket)).bytes).toBe(12 * MiB);
    // completing it would make a third object: maxObjects is 2
    expect(
      await outcome(
        s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'second.bin', UploadId: second.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: copied.CopyPartResult!.ETag }] } })),
      ),
    ).toBe('403 QuotaExceeded');
    // and a new PUT of an existing key is refused too while the bucket is full (the new version counts until the old one goes)
    expect(await outcome(s3.send(new PutObjectCommand({ Bucket, Key: 'small', Body: Buffer.alloc(10) })))).toBe('403 QuotaExceeded');

    // raising the object limit lets the completion through; the ledger equals a recount throughout
    await setQuota(gw, Bucket, { maxObjects: 3 });
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key: 'second.bin', UploadId: second.UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: copied.CopyPartResult!.ETag }] } }));
    const recount = await admin<UsageAnswer>(gw, 'POST', `/admin/buckets/${Bucket}/quota/recount`);
    expect(recount).toMatchObject({ bytes: 12 * MiB, objects: 3, drift: { bytes: 0, objects: 0 }, quota: { maxBytes: 12 * MiB, maxObjects: 3 } });
    expect(await heldBytes(s3, Bucket)).toEqual({ bytes: 12 * MiB, objects: 3 });
  });

  it('lists buckets and shows usage through the CLI: tables by default, --json for scripts', async () => {
    const Bucket = 'quota-cli';
    await s3.send(new CreateBucketCommand({ Bucket }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'a', Body: Buffer.alloc(3 * MiB) }));
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['-r', '@swc-node/register', 'apps/gateway/src/cli/admin-cli.ts', 'bucket', ...args], {
        cwd: resolve(__dirname, '../../..'),
        env: { ...process.env, OSTORE_ADMIN_URL: gw.adminUrl, ADMIN_TOKEN: gw.adminToken },
      });
    // no quota yet: usage is an exact recount
    expect(await usageOf(gw, Bucket)).toMatchObject({ source: 'recount', bytes: 3 * MiB, objects: 1 });
    const set = await cli('quota', 'set', Bucket, '--max-bytes', '10MiB', '--max-objects', '100');
    expect(set.stdout).toMatch(/byte quota\s+10 MiB, 30\.0 % used/);
    expect(set.stdout).toMatch(/object quota\s+100 objects, 1\.0 % used/);
    const json = JSON.parse((await cli('usage', Bucket, '--json')).stdout) as UsageAnswer;
    expect(json).toMatchObject({ bucket: Bucket, bytes: 3 * MiB, objects: 1, source: 'ledger', quota: { maxBytes: 10 * MiB, maxObjects: 100 } });
    expect(Date.parse(json.asOf)).toBeGreaterThan(Date.now() - 60_000);
    const list = (await cli('list')).stdout.split('\n');
    expect(list[0]).toMatch(/^NAME\s+OWNER\s+CREATED \(UTC\)\s+USED\s+OBJECTS\s+QUOTA$/);
    expect(list.find((l) => l.startsWith(`${Bucket} `))).toMatch(/tester\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+3 MiB\s+1\s+10 MiB, 100 objects$/);
    expect(await admin<UsageAnswer>(gw, 'DELETE', `/admin/buckets/${Bucket}/quota`)).toMatchObject({ source: 'recount', bytes: 3 * MiB });
    expect((await usageOf(gw, Bucket)).quota).toBeUndefined();
    const missing = (await cli('usage', 'no-such-bucket').catch((e: { code: number; stderr: string }) => e)) as { code: number; stderr: string };
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404 no bucket named no-such-bucket');
  });
});
