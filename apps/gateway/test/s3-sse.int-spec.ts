import { createHash } from 'crypto';
import { writeFile } from 'fs/promises';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteBucketEncryptionCommand,
  GetBucketEncryptionCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutBucketEncryptionCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { CassandraClient } from '@ostore/shared/cassandra';
import type { GatewayUnderTest } from '@ostore/testing';
import { bodyBytes, s3Error } from './s3-test-helpers';
import { blockFiles, copySource, customer, markedBody, masterKeyEntry, startSseGateway } from './sse-test-helpers';

const K1 = masterKeyEntry('k1');
const body = markedBody;

/**
 * Server-side encryption against the real stack: SSE-S3 and SSE-C on PutObject / GetObject /
 * HeadObject / CopyObject, bucket default encryption, and what is stored: the block files and the
 * metastore rows never hold the plaintext, and a tampered block fails instead of answering bytes.
 */
describe('server-side encryption', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let db: CassandraClient;
  const Bucket = 'sse';

  let stop: () => Promise<unknown>;

  beforeAll(async () => {
    // 64 KiB blocks: the sealed segments (64 KiB + 28) straddle blocks, and ranges cross both
    ({ gw, db, stop } = await startSseGateway('sse', Bucket, { S3_SSE_MASTER_KEYS: K1, BLOCK_SIZE_BYTES: String(64 * 1024) }));
    s3 = gw.client();
  }, 600_000);
  afterAll(() => stop?.());

  const get = async (Key: string, extra: object = {}) => {
    const r = await s3.send(new GetObjectCommand({ Bucket, Key, ...extra }));
    return { ...r, bytes: await bodyBytes(r.Body) };
  };
  const storedRows = async () => {
    const rows = (await db.execute('SELECT inline_body, meta_snapshot FROM versions')).rows;
    const metas = (await db.execute('SELECT inline_body, sse, name FROM version_meta')).rows;
    return { rows, metas };
  };

  it('SSE-S3: a large body is stored sealed (no block file holds its plaintext), read whole and in ranges', async () => {
    const plain = body(300 * 1024 + 123, 'SSE-S3-LARGE');
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'large', Body: plain, ServerSideEncryption: 'AES256' }));
    expect(put.ServerSideEncryption).toBe('AES256');
    expect(put.ETag).toBe(`"${createHash('md5').update(plain).digest('hex')}"`);
    const files = await blockFiles(gw.blockDir);
    expect(files.length).toBeGreaterThan(4);
    for (const f of files) expect(f.bytes.includes('SSE-S3-LARGE')).toBe(false);
    const whole = await get('large');
    expect(whole.ServerSideEncryption).toBe('AES256');
    expect(whole.bytes.equals(plain)).toBe(true);
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'large' }))).ServerSideEncryption).toBe('AES256');
    const seg = 64 * 1024;
    for (const [start, end] of [[0, 0], [seg - 3, seg + 2], [seg, 2 * seg - 1], [5, 3 * seg + 17], [plain.length - 10, plain.length - 1], [1000, 1000]]) {
      const r = await get('large', { Range: `bytes=${start}-${end}` });
      expect(r.ContentRange).toBe(`bytes ${start}-${end}/${plain.length}`);
      expect(r.bytes.equals(plain.subarray(start, end + 1))).toBe(true);
    }
    expect((await get('large', { Range: 'bytes=-70000' })).bytes.equals(plain.subarray(plain.length - 70000))).toBe(true);
  });

  it('SSE-S3: a small body stored inline is sealed in the row too', async () => {
    const plain = body(3000, 'SSE-S3-INLINE');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'small', Body: plain, ServerSideEncryption: 'AES256' }));
    const midsize = body(40 * 1024, 'SSE-S3-META-INLINE'); // above the row threshold: in version_meta
    await s3.send(new PutObjectCommand({ Bucket, Key: 'mid', Body: midsize, ServerSideEncryption: 'AES256' }));
    const { rows, metas } = await storedRows();
    const cells = [...rows.flatMap((r) => [r['inline_body'], r['meta_snapshot']]), ...metas.map((r) => r['inline_body'])].filter(Buffer.isBuffer) as Buffer[];
    expect(cells.length).toBeGreaterThan(1);
    for (const c of cells) {
      expect(c.includes('SSE-S3-INLINE')).toBe(false);
      expect(c.includes('SSE-S3-META-INLINE')).toBe(false);
    }
    expect(metas.find((m) => m['name'] === 'small')?.['sse']).toMatch(/"alg":"AES256","kid":"k1"/);
    expect((await get('small')).bytes.equals(plain)).toBe(true);
    expect((await get('small', { Range: 'bytes=100-199' })).bytes.equals(plain.subarray(100, 200))).toBe(true);
    expect((await get('mid')).bytes.equals(midsize)).toBe(true);
  });

  it('SSE-C: the same key reads; a missing key is 400 InvalidRequest, another key 403 AccessDenied; the ETag is not the MD5', async () => {
    const a = customer();
    const plain = body(150 * 1024, 'SSE-C-BODY');
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'customer', Body: plain, ...a }));
    expect(put.SSECustomerAlgorithm).toBe('AES256');
    expect(put.SSECustomerKeyMD5).toBe(a.SSECustomerKeyMD5);
    expect(put.ETag).not.toBe(`"${createHash('md5').update(plain).digest('hex')}"`);
    for (const f of await blockFiles(gw.blockDir)) expect(f.bytes.includes('SSE-C-BODY')).toBe(false);
    const meta = (await storedRows()).metas.find((m) => m['name'] === 'customer')?.['sse'] as string;
    expect(meta).toMatch(/"alg":"SSE-C"/);
    expect(meta).not.toContain(a.SSECustomerKey);
    expect(meta).not.toContain(a.SSECustomerKeyMD5);

    const missing = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'customer' })));
    expect([missing.name, missing.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    const wrong = await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'customer', ...customer() })));
    expect([wrong.name, wrong.$metadata.httpStatusCode]).toEqual(['AccessDenied', 403]);
    expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'customer' })))).$metadata.httpStatusCode).toBe(400);
    expect((await s3Error(s3.send(new HeadObjectCommand({ Bucket, Key: 'customer', ...customer() })))).$metadata.httpStatusCode).toBe(403);

    const r = await get('customer', a);
    expect(r.bytes.equals(plain)).toBe(true);
    expect(r.SSECustomerKeyMD5).toBe(a.SSECustomerKeyMD5);
    expect(r.ETag).toBe(put.ETag);
    const ranged = await get('customer', { ...a, Range: 'bytes=65530-131080' });
    expect(ranged.bytes.equals(plain.subarray(65530, 131081))).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'customer', ...a }));
    expect([head.SSECustomerAlgorithm, head.SSECustomerKeyMD5, head.ContentLength]).toEqual(['AES256', a.SSECustomerKeyMD5, plain.length]);
    // a key given for an object stored without one is refused too
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'small', ...a })))).name).toBe('InvalidRequest');
  });

  it('CopyObject re-encrypts between SSE-C keys, SSE-C -> SSE-S3 and plain -> SSE-C', async () => {
    const a = customer();
    const b = customer();
    const plain = body(100 * 1024, 'COPY-BODY');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'copy-src', Body: plain, ...a }));
    const noSourceKey = await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-b', CopySource: `${Bucket}/copy-src`, ...b })));
    expect([noSourceKey.name, noSourceKey.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    const wrongSourceKey = await s3Error(s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-b', CopySource: `${Bucket}/copy-src`, ...copySource(b), ...b })));
    expect(wrongSourceKey.$metadata.httpStatusCode).toBe(403);

    const toB = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-b', CopySource: `${Bucket}/copy-src`, ...copySource(a), ...b }));
    expect(toB.SSECustomerKeyMD5).toBe(b.SSECustomerKeyMD5);
    expect((await get('copy-b', b)).bytes.equals(plain)).toBe(true);
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'copy-b', ...a })))).$metadata.httpStatusCode).toBe(403);

    const toS3 = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-s3', CopySource: `${Bucket}/copy-src`, ...copySource(a), ServerSideEncryption: 'AES256' }));
    expect(toS3.ServerSideEncryption).toBe('AES256');
    const s3Copy = await get('copy-s3');
    expect(s3Copy.bytes.equals(plain)).toBe(true);
    expect(s3Copy.ETag).toBe(`"${createHash('md5').update(plain).digest('hex')}"`);

    const toPlain = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-plain', CopySource: `${Bucket}/copy-src`, ...copySource(a) }));
    expect(toPlain.ServerSideEncryption).toBeUndefined();
    expect((await get('copy-plain')).bytes.equals(plain)).toBe(true);

    const plainToC = await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-c', CopySource: `${Bucket}/copy-plain`, ...b }));
    expect(plainToC.SSECustomerAlgorithm).toBe('AES256');
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'copy-c' })))).$metadata.httpStatusCode).toBe(400);
    expect((await get('copy-c', b)).bytes.equals(plain)).toBe(true);
    // SSE-S3 -> SSE-S3 shares the stored blocks and their data key, and still reads
    await s3.send(new CopyObjectCommand({ Bucket, Key: 'copy-s3-2', CopySource: `${Bucket}/copy-s3`, ServerSideEncryption: 'AES256' }));
    expect((await get('copy-s3-2')).bytes.equals(plain)).toBe(true);
  });

  it('bucket default encryption: not found until set, applied to objects sent without SSE headers, aws:kms refused', async () => {
    const B = 'sse-default';
    await s3.send(new CreateBucketCommand({ Bucket: B }));
    const none = await s3Error(s3.send(new GetBucketEncryptionCommand({ Bucket: B })));
    expect([none.name, none.$metadata.httpStatusCode]).toEqual(['ServerSideEncryptionConfigurationNotFoundError', 404]);
    const kms = await s3Error(
      s3.send(new PutBucketEncryptionCommand({ Bucket: B, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } }] } })),
    );
    expect(kms.name).toBe('NotImplemented');
    await s3.send(new PutBucketEncryptionCommand({ Bucket: B, ServerSideEncryptionConfiguration: { Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] } }));
    const config = await s3.send(new GetBucketEncryptionCommand({ Bucket: B }));
    expect(config.ServerSideEncryptionConfiguration?.Rules?.[0]?.ApplyServerSideEncryptionByDefault?.SSEAlgorithm).toBe('AES256');
    // the bucket row is cached for up to S3_BUCKET_CACHE_MS by other gateways; this one dropped it
    const put = await s3.send(new PutObjectCommand({ Bucket: B, Key: 'by-default', Body: body(200, 'DEFAULT-ENC') }));
    expect(put.ServerSideEncryption).toBe('AES256');
    expect((await s3.send(new HeadObjectCommand({ Bucket: B, Key: 'by-default' }))).ServerSideEncryption).toBe('AES256');
    const { metas } = await storedRows();
    expect(metas.find((m) => m['name'] === 'by-default')?.['sse']).toMatch(/"alg":"AES256"/);
    await s3.send(new DeleteBucketEncryptionCommand({ Bucket: B }));
    expect((await s3Error(s3.send(new GetBucketEncryptionCommand({ Bucket: B })))).name).toBe('ServerSideEncryptionConfigurationNotFoundError');
    expect((await s3.send(new PutObjectCommand({ Bucket: B, Key: 'after', Body: 'plain' }))).ServerSideEncryption).toBeUndefined();
  });

  it('a tampered block fails the read instead of answering altered bytes', async () => {
    const plain = body(130 * 1024, 'TAMPER');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'tamper', Body: plain, ServerSideEncryption: 'AES256' }));
    const before = new Set((await blockFiles(gw.blockDir)).map((f) => f.path));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'tamper-2', Body: plain, ServerSideEncryption: 'AES256' }));
    const fresh = (await blockFiles(gw.blockDir)).filter((f) => !before.has(f.path));
    expect(fresh.length).toBeGreaterThan(0);
    const victim = fresh[0]!;
    victim.bytes[100] ^= 1;
    await writeFile(victim.path, victim.bytes);
    await expect(get('tamper-2')).rejects.toThrow();
    expect((await get('tamper')).bytes.equals(plain)).toBe(true);
  });

  it('master-key rotation: objects wrapped by an older key stay readable, new ones use the new key; a key removed too early is an error, never plaintext', async () => {
    const plain = body(90 * 1024, 'ROTATE');
    await s3.send(new PutObjectCommand({ Bucket, Key: 'rotate-old', Body: plain, ServerSideEncryption: 'AES256' }));
    const K2 = masterKeyEntry('k2');
    await gw.restart({ S3_SSE_MASTER_KEYS: `${K2},${K1}` });
    s3 = gw.client();
    expect((await get('rotate-old')).bytes.equals(plain)).toBe(true);
    await s3.send(new PutObjectCommand({ Bucket, Key: 'rotate-new', Body: plain, ServerSideEncryption: 'AES256' }));
    expect((await storedRows()).metas.find((m) => m['name'] === 'rotate-new')?.['sse']).toMatch(/"kid":"k2"/);
    await gw.restart({ S3_SSE_MASTER_KEYS: K2 });
    s3 = gw.client();
    expect((await get('rotate-new')).bytes.equals(plain)).toBe(true);
    expect((await s3Error(s3.send(new GetObjectCommand({ Bucket, Key: 'rotate-old' })))).$metadata.httpStatusCode).toBe(500);
  }, 900_000);
});
