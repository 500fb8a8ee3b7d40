import { createHash } from 'crypto';
import { Transform, TransformCallback } from 'stream';
import { createHasher as createProtocolHasher } from '@ostore/s3/protocol';
import type { ChecksumAlgorithm } from './api';

/** An incremental digest returning raw bytes. */
export interface Hasher {
  update(chunk: Buffer): void;
  digest(): Buffer;
}

/** Digests from the protocol lib (its CRC32 and CRC32C run at hundreds of MiB/s; @aws-crypto's CRC32C at ~30). */
export function createHasher(alg: ChecksumAlgorithm | 'MD5'): Hasher {
  const h = createProtocolHasher(alg);
  return { update: (chunk) => h.update(chunk), digest: () => h.digestBuffer() };
}

export interface BodyDigests {
  md5: Buffer;
  size: number;
  /** base64 digests of the requested algorithms. */
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/**
 * A pass-through stream that digests what flows through it (MD5 unless told otherwise, plus the
 * requested checksums); `result()` is valid once the stream has ended.
 */
export class DigestTap extends Transform {
  private md5: Hasher | undefined;
  private readonly others: [ChecksumAlgorithm, Hasher][];
  private size = 0;

  /** `md5: false`: the caller gets the body's MD5 elsewhere (a BlockManager that digests bodies). */
  constructor(algorithms: ChecksumAlgorithm[] = [], options: { md5?: boolean } = {}) {
    super();
    this.md5 = options.md5 === false ? undefined : createHasher('MD5');
    this.others = [...new Set(algorithms)].map((a) => [a, createHasher(a)]);
  }

  /** Stops computing the MD5 from now on (its partial value is useless: `result().md5` is then empty). */
  dropMd5(): void {
    this.md5 = undefined;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.md5?.update(chunk);
    for (const [, h] of this.others) h.update(chunk);
    this.size += chunk.length;
    cb(null, chunk);
  }

  result(): BodyDigests {
    const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
    for (const [a, h] of this.others) checksums[a] = h.digest().toString('base64');
    return { md5: this.md5 ? this.md5.digest() : Buffer.alloc(0), size: this.size, checksums };
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
