import { createHash, Hash } from 'crypto';
import { crc32 } from 'zlib';
import { S3Error } from './errors';
import { headerValue, HttpHeaders } from './headers';

/**
 * S3 additional checksums (x-amz-checksum-*), Content-MD5, and multipart composite checksums.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
 */

export const CHECKSUM_ALGORITHMS = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];
export type HashAlgorithm = ChecksumAlgorithm | 'MD5';
/** x-amz-checksum-type of a multipart upload. */
export type ChecksumType = 'COMPOSITE' | 'FULL_OBJECT';

const DIGEST_LENGTH: Record<HashAlgorithm, number> = {
  CRC32: 4,
  CRC32C: 4,
  CRC64NVME: 8,
  SHA1: 20,
  SHA256: 32,
  MD5: 16,
};

export interface Hasher {
  update(data: Uint8Array): void;
  /** Base64 of the digest, as S3 returns checksums. */
  digest(): string;
  /** The raw digest; CRCs big-endian. */
  digestBuffer(): Buffer;
}

/** A streaming hasher. `digest` may be called repeatedly; `update` after it throws. */
export function createHasher(algorithm: HashAlgorithm): Hasher {
  switch (algorithm) {
    case 'CRC32':
      return new CrcHasher(() => {
        let crc = 0;
        return { update: (d) => (crc = crc32(d, crc)), digest: () => uint32(crc) };
      });
    case 'CRC32C':
      return new CrcHasher(() => new Crc32c());
    case 'CRC64NVME':
      return new CrcHasher(() => new Crc64Nvme());
    case 'SHA1':
      return new NodeHasher(createHash('sha1'));
    case 'SHA256':
      return new NodeHasher(createHash('sha256'));
    case 'MD5':
      return new NodeHasher(createHash('md5'));
  }
}

/** The base64 checksum of a whole buffer. */
export function checksumOf(algorithm: HashAlgorithm, data: Uint8Array | string): string {
  const hasher = createHasher(algorithm);
  hasher.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  return hasher.digest();
}

/** `x-amz-checksum-crc32` etc. */
export function checksumHeaderName(algorithm: ChecksumAlgorithm): string {
  return `x-amz-checksum-${algorithm.toLowerCase()}`;
}

export function isChecksumAlgorithm(value: string): value is ChecksumAlgorithm {
  return (CHECKSUM_ALGORITHMS as readonly string[]).includes(value);
}

const UNSUPPORTED_ALGORITHM =
  'Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]';

/** An algorithm name from a header or XML field, case-insensitive. */
export function parseChecksumAlgorithm(value: string): ChecksumAlgorithm {
  const upper = value.trim().toUpperCase();
  if (!isChecksumAlgorithm(upper)) throw new S3Error('InvalidRequest', UNSUPPORTED_ALGORITHM);
  return upper;
}

/** True when `value` is canonical base64 of exactly the algorithm's digest length. */
export function isValidChecksumValue(algorithm: HashAlgorithm, value: string): boolean {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) return false;
  const bytes = Buffer.from(value, 'base64');
  return bytes.length === DIGEST_LENGTH[algorithm] && bytes.toString('base64') === value;
}

/** Where a request carries its checksum: a header value now, or a trailer after the body. */
export interface RequestChecksum {
  algorithm: ChecksumAlgorithm;
  location: 'header' | 'trailer';
  /** Base64, validated; only for `header`. */
  value?: string;
}

/**
 * The additional checksum a PutObject/UploadPart request declares, from x-amz-checksum-<alg>,
 * x-amz-trailer and x-amz-sdk-checksum-algorithm, checked for consistency as S3 does. Undefined
 * when the request has none. (x-amz-checksum-algorithm of CreateMultipartUpload is a setting,
 * not a checksum: read it with {@link parseChecksumAlgorithm}.)
 */
export function requestChecksum(headers: HttpHeaders): RequestChecksum | undefined {
  const found: RequestChecksum[] = [];
  for (const name of Object.keys(headers)) {
    const value = headerValue(headers, name);
    if (value === undefined || !name.startsWith('x-amz-checksum-')) continue;
    const suffix = name.slice('x-amz-checksum-'.length).toUpperCase();
    if (suffix === 'ALGORITHM' || suffix === 'TYPE' || suffix === 'MODE') continue;
    const algorithm = parseChecksumAlgorithm(suffix);
    if (!isValidChecksumValue(algorithm, value.trim())) {
      throw new S3Error('InvalidRequest', `Value for ${name} header is invalid.`);
    }
    found.push({ algorithm, location: 'header', value: value.trim() });
  }
  const trailer = headerValue(headers, 'x-amz-trailer');
  for (const name of (trailer ?? '').split(',').map((n) => n.trim().toLowerCase())) {
    if (!name.startsWith('x-amz-checksum-')) continue;
    found.push({
      algorithm: parseChecksumAlgorithm(name.slice('x-amz-checksum-'.length)),
      location: 'trailer',
    });
  }
  if (found.length > 1) {
    throw new S3Error(
      'InvalidRequest',
      'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.',
    );
  }
  const sdkAlgorithm = headerValue(headers, 'x-amz-sdk-checksum-algorithm');
  if (sdkAlgorithm !== undefined) {
    const algorithm = parseChecksumAlgorithm(sdkAlgorithm);
    if (found.length === 0) {
      throw new S3Error(
        'InvalidRequest',
        'x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.',
      );
    }
    if (found[0].algorithm !== algorithm) {
      throw new S3Error('InvalidRequest', `Value for x-amz-sdk-checksum-algorithm header is invalid.`);
    }
  }
  return found[0];
}

/** The algorithm of {@link requestChecksum}, or of x-amz-checksum-algorithm (CreateMultipartUpload). */
export function checksumAlgorithmFromHeaders(headers: HttpHeaders): ChecksumAlgorithm | undefined {
  const declared = requestChecksum(headers);
  if (declared) return declared.algorithm;
  const setting = headerValue(headers, 'x-amz-checksum-algorithm');
  return setting === undefined ? undefined : parseChecksumAlgorithm(setting);
}

/** An x-amz-checksum-type value (COMPOSITE or FULL_OBJECT, any case); InvalidRequest for another. */
export function parseChecksumTypeValue(value: string | undefined): ChecksumType | undefined {
  if (value === undefined) return undefined;
  const type = value.trim().toUpperCase();
  if (type !== 'COMPOSITE' && type !== 'FULL_OBJECT') {
    throw new S3Error('InvalidRequest', 'Value for x-amz-checksum-type header is invalid.');
  }
  return type;
}

/**
 * x-amz-checksum-type of CreateMultipartUpload with S3's pairing rules: CRC64NVME supports only
 * FULL_OBJECT, SHA1/SHA256 only COMPOSITE; CRC32/CRC32C either, COMPOSITE by default.
 */
export function parseChecksumType(
  value: string | undefined,
  algorithm: ChecksumAlgorithm | undefined,
): ChecksumType | undefined {
  if (value === undefined) {
    if (algorithm === undefined) return undefined;
    return algorithm === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE';
  }
  const type = parseChecksumTypeValue(value)!;
  if (algorithm === undefined) {
    throw new S3Error(
      'InvalidRequest',
      'The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.',
    );
  }
  const allowed =
    algorithm === 'CRC64NVME'
      ? ['FULL_OBJECT']
      : algorithm.startsWith('SHA')
        ? ['COMPOSITE']
        : ['COMPOSITE', 'FULL_OBJECT'];
  if (!allowed.includes(type)) {
    throw new S3Error(
      'InvalidRequest',
      `The ${type} checksum type cannot be used with the ${algorithm.toLowerCase()} checksum algorithm.`,
    );
  }
  return type;
}

/** Throws BadDigest, with S3's wording, when a provided checksum differs from the computed one. */
export function verifyChecksum(algorithm: ChecksumAlgorithm, provided: string, computed: string): void {
  if (provided !== computed) {
    throw new S3Error('BadDigest', `The ${algorithm} you specified did not match the calculated checksum.`);
  }
}

/** Content-MD5: base64 of 16 bytes, else InvalidDigest. */
export function parseContentMd5(value: string): Buffer {
  const trimmed = value.trim();
  if (!isValidChecksumValue('MD5', trimmed)) throw new S3Error('InvalidDigest');
  return Buffer.from(trimmed, 'base64');
}

/**
 * Checksum of a COMPOSITE multipart object: the algorithm over the concatenated raw part
 * checksums, then `-<number of parts>`. Parts in part-number order.
 */
export function compositeChecksum(algorithm: ChecksumAlgorithm, partChecksums: string[]): string {
  const hasher = createHasher(algorithm);
  for (const part of partChecksums) hasher.update(Buffer.from(part, 'base64'));
  return `${hasher.digest()}-${partChecksums.length}`;
}

export type CrcAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME';

/**
 * Checksum of a FULL_OBJECT multipart object: the CRC of the whole object, computed from the
 * parts' CRCs and sizes alone (zlib's crc32_combine in GF(2), generalised to 64 bits), so that
 * nothing re-reads the data. No `-N` suffix, as S3 returns full-object checksums.
 */
export function fullObjectChecksum(
  algorithm: CrcAlgorithm,
  parts: { checksum: string; size: number }[],
): string {
  if (parts.length === 0) return checksumOf(algorithm, '');
  const { width, poly } = CRC_PARAMS[algorithm];
  const bytes = width / 8;
  // Parts are mostly of one size: compute each distinct shift operator once.
  const shifts = new Map<number, bigint>();
  let crc = 0n;
  parts.forEach((part, i) => {
    const raw = Buffer.from(part.checksum, 'base64');
    if (raw.length !== bytes)
      throw new S3Error('InvalidRequest', `Value for the ${algorithm} checksum of part ${i + 1} is invalid.`);
    const partCrc = BigInt(`0x${raw.toString('hex')}`);
    if (i === 0) {
      crc = partCrc;
      return;
    }
    let shift = shifts.get(part.size);
    if (shift === undefined) shifts.set(part.size, (shift = xPow8n(BigInt(part.size), width, poly)));
    crc = multModP(shift, crc, width, poly) ^ partCrc;
  });
  return Buffer.from(crc.toString(16).padStart(bytes * 2, '0'), 'hex').toString('base64');
}

const CRC_PARAMS: Record<CrcAlgorithm, { width: 32 | 64; poly: bigint }> = {
  CRC32: { width: 32, poly: 0xedb88320n },
  CRC32C: { width: 32, poly: 0x82f63b78n },
  CRC64NVME: { width: 64, poly: 0x9a6c9329ac4bc9b5n },
};

/** a·b modulo the polynomial, both in reflected bit order (the top bit is x^0). */
function multModP(a: bigint, b: bigint, width: number, poly: bigint): bigint {
  let m = 1n << BigInt(width - 1);
  let p = 0n;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1n)) === 0n) break;
    }
    m >>= 1n;
    b = b & 1n ? (b >> 1n) ^ poly : b >> 1n;
  }
  return p;
}

/** x^(8n) modulo the polynomial, by squaring: the operator that shifts a CRC past n zero bytes. */
function xPow8n(n: bigint, width: number, poly: bigint): bigint {
  let square = multModP(1n << BigInt(width - 2), 1n << BigInt(width - 2), width, poly); // x^2
  square = multModP(square, square, width, poly); // x^4
  square = multModP(square, square, width, poly); // x^8
  let p = 1n << BigInt(width - 1); // x^0
  for (; n > 0n; n >>= 1n) {
    if (n & 1n) p = multModP(square, p, width, poly);
    square = multModP(square, square, width, poly);
  }
  return p;
}

interface CrcState {
  update(data: Uint8Array): void;
  digest(): Buffer;
}

class CrcHasher implements Hasher {
  private readonly state: CrcState;
  private result?: Buffer;

  constructor(create: () => CrcState) {
    this.state = create();
  }

  update(data: Uint8Array): void {
    if (this.result) throw new Error('update() after digest()');
    this.state.update(data);
  }

  digest(): string {
    return this.digestBuffer().toString('base64');
  }

  digestBuffer(): Buffer {
    this.result ??= this.state.digest();
    return Buffer.from(this.result);
  }
}

class NodeHasher implements Hasher {
  private result?: Buffer;

  constructor(private readonly hash: Hash) {}

  update(data: Uint8Array): void {
    if (this.result) throw new Error('update() after digest()');
    this.hash.update(data);
  }

  digest(): string {
    return this.digestBuffer().toString('base64');
  }

  digestBuffer(): Buffer {
    this.result ??= this.hash.digest();
    return Buffer.from(this.result);
  }
}

function uint32(value: number): Buffer {
  const buf = Buffer.alloc(4);
  buf.writeUInt32BE(value >>> 0);
  return buf;
}

/**
 * CRC-32C (Castagnoli, reflected 0x82f63b78), slicing-by-8: eight bytes per step through eight
 * tables. A byte-at-a-time table (as in @aws-crypto/crc32c) runs at ~30 MiB/s, which would cap
 * the upload rate of every client that picks CRC32C; this runs about ten times faster.
 */
const CRC32C_TABLES = (() => {
  const t = new Uint32Array(8 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let bit = 0; bit < 8; bit++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[i] = c >>> 0;
  }
  for (let k = 1; k < 8; k++) {
    for (let i = 0; i < 256; i++) {
      const prev = t[(k - 1) * 256 + i];
      t[k * 256 + i] = ((prev >>> 8) ^ t[prev & 0xff]) >>> 0;
    }
  }
  return t;
})();

class Crc32c implements CrcState {
  private crc = 0xffffffff;

  update(data: Uint8Array): void {
    const t = CRC32C_TABLES;
    let crc = this.crc;
    let i = 0;
    for (const end = data.length - 8; i <= end; i += 8) {
      const lo = (crc ^ (data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24))) >>> 0;
      const hi = (data[i + 4] | (data[i + 5] << 8) | (data[i + 6] << 16) | (data[i + 7] << 24)) >>> 0;
      crc =
        t[1792 + (lo & 0xff)] ^
        t[1536 + ((lo >>> 8) & 0xff)] ^
        t[1280 + ((lo >>> 16) & 0xff)] ^
        t[1024 + (lo >>> 24)] ^
        t[768 + (hi & 0xff)] ^
        t[512 + ((hi >>> 8) & 0xff)] ^
        t[256 + ((hi >>> 16) & 0xff)] ^
        t[hi >>> 24];
    }
    for (; i < data.length; i++) crc = t[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
    this.crc = crc >>> 0;
  }

  digest(): Buffer {
    return uint32(this.crc ^ 0xffffffff);
  }
}

/**
 * CRC-64/NVME (reflected, polynomial 0xad93d23594c93659, init and xor-out all ones), kept as
 * two 32-bit halves: BigInt per byte would be two orders of magnitude slower.
 */
const CRC64_TABLE = (() => {
  const POLY_HI = 0x9a6c9329; // reflected polynomial 0x9a6c9329ac4bc9b5
  const POLY_LO = 0xac4bc9b5;
  const hi = new Uint32Array(256);
  const lo = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let h = 0;
    let l = i;
    for (let bit = 0; bit < 8; bit++) {
      const carry = l & 1;
      l = ((l >>> 1) | ((h & 1) << 31)) >>> 0;
      h = h >>> 1;
      if (carry) {
        h = (h ^ POLY_HI) >>> 0;
        l = (l ^ POLY_LO) >>> 0;
      }
    }
    hi[i] = h;
    lo[i] = l;
  }
  return { hi, lo };
})();

class Crc64Nvme implements CrcState {
  private hi = 0xffffffff;
  private lo = 0xffffffff;

  update(data: Uint8Array): void {
    const { hi: tHi, lo: tLo } = CRC64_TABLE;
    let hi = this.hi;
    let lo = this.lo;
    for (let i = 0; i < data.length; i++) {
      const index = (lo ^ data[i]) & 0xff;
      lo = (((lo >>> 8) | (hi << 24)) ^ tLo[index]) >>> 0;
      hi = ((hi >>> 8) ^ tHi[index]) >>> 0;
    }
    this.hi = hi;
    this.lo = lo;
  }

  digest(): Buffer {
    const buf = Buffer.alloc(8);
    buf.writeUInt32BE((this.hi ^ 0xffffffff) >>> 0, 0);
    buf.writeUInt32BE((this.lo ^ 0xffffffff) >>> 0, 4);
    return buf;
  }
}
