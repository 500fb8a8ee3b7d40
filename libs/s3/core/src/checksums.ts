import { createHash, Hash } from 'crypto';
import { Transform, TransformCallback } from 'stream';
import { Crc32 } from '@aws-crypto/crc32';
import { Crc32c } from '@aws-crypto/crc32c';
import type { ChecksumAlgorithm } from './api';

/** An incremental digest returning raw bytes. */
export interface Hasher {
  update(chunk: Buffer): void;
  digest(): Buffer;
}

class CrcHasher implements Hasher {
  constructor(private readonly crc: Crc32 | Crc32c) {}
  update(chunk: Buffer): void {
    this.crc.update(chunk);
  }
  digest(): Buffer {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(this.crc.digest() >>> 0, 0);
    return out;
  }
}

class NodeHasher implements Hasher {
  private readonly h: Hash;
  constructor(alg: string) {
    this.h = createHash(alg);
  }
  update(chunk: Buffer): void {
    this.h.update(chunk);
  }
  digest(): Buffer {
    return this.h.digest();
  }
}

export function createHasher(alg: ChecksumAlgorithm | 'MD5'): Hasher {
  switch (alg) {
    case 'CRC32':
      return new CrcHasher(new Crc32());
    case 'CRC32C':
      return new CrcHasher(new Crc32c());
    case 'SHA1':
      return new NodeHasher('sha1');
    case 'SHA256':
      return new NodeHasher('sha256');
    case 'MD5':
      return new NodeHasher('md5');
  }
}

export interface BodyDigests {
  md5: Buffer;
  size: number;
  /** base64 digests of the requested algorithms. */
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/**
 * A pass-through stream that digests what flows through it (MD5 always, plus the requested
 * checksums); `result()` is valid once the stream has ended.
 */
export class DigestTap extends Transform {
  private readonly md5 = createHasher('MD5');
  private readonly others: [ChecksumAlgorithm, Hasher][];
  private size = 0;

  constructor(algorithms: ChecksumAlgorithm[] = []) {
    super();
    this.others = [...new Set(algorithms)].map((a) => [a, createHasher(a)]);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.md5.update(chunk);
    for (const [, h] of this.others) h.update(chunk);
    this.size += chunk.length;
    cb(null, chunk);
  }

  result(): BodyDigests {
    const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
    for (const [a, h] of this.others) checksums[a] = h.digest().toString('base64');
    return { md5: this.md5.digest(), size: this.size, checksums };
  }
}

/** `"<hex md5>"`, as S3 returns a single-part ETag. */
export function quotedEtag(md5: Buffer): string {
  return `"${md5.toString('hex')}"`;
}

/** The ETag without quotes, lower case (clients send either form). */
export function normalizeEtag(etag: string): string {
  return etag.trim().replace(/^"+|"+$/g, '').toLowerCase();
}

/** S3's multipart ETag: md5 of the concatenated binary part md5s, then "-<part count>". */
export function multipartEtag(partEtags: string[]): string {
  const h = createHash('md5');
  for (const e of partEtags) h.update(Buffer.from(normalizeEtag(e), 'hex'));
  return `"${h.digest('hex')}-${partEtags.length}"`;
}

/** S3's composite checksum of a multipart object: the checksum of the parts' binary checksums, "-N". */
export function compositeChecksum(alg: ChecksumAlgorithm, partChecksums: string[]): string {
  const h = createHasher(alg);
  for (const c of partChecksums) h.update(Buffer.from(c, 'base64'));
  return `${h.digest().toString('base64')}-${partChecksums.length}`;
}
