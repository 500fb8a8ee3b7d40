import { createHash } from 'crypto';
import {
  ChecksumAlgorithm,
  ChecksumType,
  CompleteMultipartUploadCommand,
  CompleteMultipartUploadCommandInput,
  CompletedPart,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectAttributesCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { checksumOf } from '@ostore/s3/protocol';
import { GatewayUnderTest, startGateway } from '@ostore/testing';
import { bodyBytes, s3Error } from './s3-test-helpers';

const MiB = 1024 * 1024;
type Alg = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';

function pattern(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 197 + seed * 31) % 251;
  return b;
}

/** The checksum field of an SDK shape for an algorithm (ChecksumCRC32 …). */
const field = (alg: Alg) => `Checksum${alg}` as const;
const valueOf = (shape: object | undefined, alg: Alg) => (shape as Record<string, string | undefined> | undefined)?.[field(alg)];

/** The composite checksum computed directly: the algorithm over the raw part checksums, then -N. */
function composite(alg: Alg, parts: Buffer[]): string {
  const raw = Buffer.concat(parts.map((p) => Buffer.from(checksumOf(alg, p), 'base64')));
  return `${alg.startsWith('SHA') ? createHash(alg === 'SHA1' ? 'sha1' : 'sha256').update(raw).digest('base64') : checksumOf(alg, raw)}-${parts.length}`;
}

/**
 * S3's checksum types of multipart uploads (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html):
 * every algorithm with every type it supports, through the SDK v3 and the real gateway; the
 * expected values are computed here from the bodies, not by the gateway's code.
 */
describe('multipart checksum types through the AWS SDK v3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  const Bucket = 'mp-checksums';
  const bodies = [pattern(5 * MiB + 1, 1), pattern(777, 2)];

  beforeAll(async () => {
    gw = await startGateway('multipart-checksums', { BLOCK_SIZE_BYTES: String(1 * MiB) });
    s3 = gw.client();
    await s3.send(new CreateBucketCommand({ Bucket }));
  });
  afterAll(() => gw?.stop());

  /** Creates an upload and uploads both parts with the algorithm; returns what Complete needs. */
  async function upload(Key: string, alg: Alg, type?: ChecksumType) {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key, ChecksumAlgorithm: alg as ChecksumAlgorithm, ChecksumType: type }));
    const Parts: CompletedPart[] = [];
    for (const [i, Body] of bodies.entries()) {
      const p = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId: created.UploadId, PartNumber: i + 1, Body, ChecksumAlgorithm: alg as ChecksumAlgorithm }));
      expect(valueOf(p, alg)).toBe(checksumOf(alg, Body));
      Parts.push({ ETag: p.ETag, PartNumber: i + 1, [field(alg)]: valueOf(p, alg) });
    }
    const complete = (extra: Partial<CompleteMultipartUploadCommandInput> = {}) =>
      s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: created.UploadId, MultipartUpload: { Parts }, ...extra }));
    return { created, complete };
  }

  it.each([
    ['CRC32', 'COMPOSITE'],
    ['CRC32', 'FULL_OBJECT'],
    ['CRC32C', 'COMPOSITE'],
    ['CRC32C', 'FULL_OBJECT'],
    ['CRC64NVME', 'FULL_OBJECT'],
    ['SHA1', 'COMPOSITE'],
    ['SHA256', 'COMPOSITE'],
  ] as [Alg, ChecksumType][])('%s %s: the type is kept and the object checksum is the right one everywhere', async (alg, type) => {
    const Key = `obj/${alg}-${type}`;
    const { created, complete } = await upload(Key, alg, type);
    expect(created).toMatchObject({ ChecksumAlgorithm: alg, ChecksumType: type });
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId: created.UploadId }));
    expect(listed).toMatchObject({ ChecksumAlgorithm: alg, ChecksumType: type });
    expect(listed.Parts!.map((p) => valueOf(p, alg))).toEqual(bodies.map((b) => checksumOf(alg, b)));
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket, Prefix: Key }));
    expect(uploads.Uploads).toMatchObject([{ Key, ChecksumAlgorithm: alg, ChecksumType: type }]);

    const expected = type === 'COMPOSITE' ? composite(alg, bodies) : checksumOf(alg, Buffer.concat(bodies));
    // a wrong value, and the other type, are BadDigest (and leave the upload to complete)
    const wrong = checksumOf(alg, 'not the object');
    expect((await s3Error(complete({ [field(alg)]: type === 'COMPOSITE' ? `${wrong}-2` : wrong }))).name).toBe('BadDigest');
    const otherType = type === 'COMPOSITE' ? 'FULL_OBJECT' : 'COMPOSITE';
    expect((await s3Error(complete({ ChecksumType: otherType }))).name).toBe('BadDigest');
    const done = await complete({ [field(alg)]: expected, ChecksumType: type });
    expect(done).toMatchObject({ ChecksumType: type, [field(alg)]: expected });
    expect(expected.endsWith('-2')).toBe(type === 'COMPOSITE');

    const head = await s3.send(new HeadObjectCommand({ Bucket, Key, ChecksumMode: 'ENABLED' }));
    expect(head).toMatchObject({ ChecksumType: type, [field(alg)]: expected });
    const plainHead = await s3.send(new HeadObjectCommand({ Bucket, Key }));
    expect(valueOf(plainHead, alg)).toBeUndefined();
    // the whole GET validates a FULL_OBJECT CRC in the SDK itself (a COMPOSITE one it skips)
    const got = await s3.send(new GetObjectCommand({ Bucket, Key, ChecksumMode: 'ENABLED' }));
    expect(Buffer.compare(await bodyBytes(got.Body), Buffer.concat(bodies))).toBe(0);
    expect(got).toMatchObject({ ChecksumType: type, [field(alg)]: expected });
    for (const [i, body] of bodies.entries()) {
      const part = await s3.send(new GetObjectCommand({ Bucket, Key, PartNumber: i + 1, ChecksumMode: 'ENABLED' }));
      expect(Buffer.compare(await bodyBytes(part.Body), body)).toBe(0);
      expect(part).toMatchObject({ ChecksumType: type, [field(alg)]: checksumOf(alg, body) });
    }

    const attrs = await s3.send(new GetObjectAttributesCommand({ Bucket, Key, ObjectAttributes: ['Checksum', 'ObjectParts'] }));
    expect(attrs.Checksum).toEqual({ ChecksumType: type, [field(alg)]: expected });
    expect(attrs.ObjectParts!.Parts!.map((p) => [p.PartNumber, p.Size, valueOf(p, alg)])).toEqual(
      bodies.map((b, i) => [i + 1, b.length, checksumOf(alg, b)]),
    );
  });

  it('gives a single-request upload the FULL_OBJECT type', async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: 'single', Body: bodies[1], ChecksumAlgorithm: 'CRC32C' }));
    expect(put).toMatchObject({ ChecksumType: 'FULL_OBJECT', ChecksumCRC32C: checksumOf('CRC32C', bodies[1]) });
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: 'single', ChecksumMode: 'ENABLED' }));
    expect(head).toMatchObject({ ChecksumType: 'FULL_OBJECT', ChecksumCRC32C: put.ChecksumCRC32C });
  });

  it('defaults the type as S3 does: CRC64NVME full-object, the others composite', async () => {
    const crc64 = await upload('default/crc64', 'CRC64NVME');
    expect(crc64.created.ChecksumType).toBe('FULL_OBJECT');
    expect((await crc64.complete()).ChecksumCRC64NVME).toBe(checksumOf('CRC64NVME', Buffer.concat(bodies)));
    const crc32 = await upload('default/crc32', 'CRC32');
    expect(crc32.created.ChecksumType).toBe('COMPOSITE');
    expect((await crc32.complete()).ChecksumCRC32).toBe(composite('CRC32', bodies));
  });

  it('refuses a type the algorithm cannot make, and a checksum of another algorithm on Complete', async () => {
    for (const [alg, type] of [
      ['CRC64NVME', 'COMPOSITE'],
      ['SHA1', 'FULL_OBJECT'],
      ['SHA256', 'FULL_OBJECT'],
    ] as [ChecksumAlgorithm, ChecksumType][]) {
      const e = await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'refused', ChecksumAlgorithm: alg, ChecksumType: type })));
      expect([alg, type, e.name, e.$metadata.httpStatusCode]).toEqual([alg, type, 'InvalidRequest', 400]);
    }
    const noAlgorithm = await s3Error(s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'refused', ChecksumType: 'FULL_OBJECT' })));
    expect(noAlgorithm.name).toBe('InvalidRequest');

    const { complete } = await upload('other-alg', 'CRC32C', 'FULL_OBJECT');
    const other = await s3Error(complete({ ChecksumCRC32: checksumOf('CRC32', Buffer.concat(bodies)) }));
    expect([other.name, other.$metadata.httpStatusCode]).toEqual(['InvalidRequest', 400]);
    expect((await complete()).ChecksumCRC32C).toBe(checksumOf('CRC32C', Buffer.concat(bodies)));

    const plain = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key: 'no-alg' }));
    const p = await s3.send(new UploadPartCommand({ Bucket, Key: 'no-alg', UploadId: plain.UploadId, PartNumber: 1, Body: bodies[1] }));
    const without = await s3Error(
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: 'no-alg',
          UploadId: plain.UploadId,
          ChecksumSHA256: createHash('sha256').update(bodies[1]).digest('base64'),
          MultipartUpload: { Parts: [{ ETag: p.ETag, PartNumber: 1 }] },
        }),
      ),
    );
    expect(without.name).toBe('InvalidRequest');
  });
});
