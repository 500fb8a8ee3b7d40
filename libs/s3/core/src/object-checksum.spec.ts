import type { PartRow, UploadRow } from '@ostore/metastore/data-access';
import { checksumOf } from '@ostore/s3/protocol';
import type { S3DomainError } from './api';
import { checksumTypeOf, multipartChecksum, uploadChecksumType, verifyCompletionChecksum } from './object-checksum';

const MiB = 1024 * 1024;
const upload = (checksumAlgorithm?: string, checksumType?: string) => ({ checksumAlgorithm, checksumType }) as UploadRow;
const partsOf = (bodies: Buffer[], alg: string): PartRow[] =>
  bodies.map((b, i) => ({ partNumber: i + 1, size: b.length, checksums: { [alg]: checksumOf(alg as 'CRC32', b) } }) as unknown as PartRow);
const codeOf = (f: () => void) => {
  try {
    f();
  } catch (e) {
    return (e as S3DomainError).code;
  }
  return undefined;
};

/**
 * Three 5 MiB parts of 'A', 'B' and 'C': the vectors of ceph/s3-tests' multipart checksum tests
 * (computed there by unittest_rgw_cksum, independently of this code).
 */
const ABC = ['A', 'B', 'C'].map((c) => Buffer.alloc(5 * MiB, c));

describe(multipartChecksum.name, () => {
  it.each([
    ['CRC32', 'FULL_OBJECT', 'WgDhBQ=='],
    ['CRC32C', 'FULL_OBJECT', 'xU+Krw=='],
    ['CRC64NVME', 'FULL_OBJECT', 'i+6LR0y3eFo='],
    ['SHA1', 'COMPOSITE', 'sizjvY4eud3MrcHdZM3cQ/ol39o=-3'],
    ['SHA256', 'COMPOSITE', 'uWBwpe1dxI4Vw8Gf0X9ynOdw/SS6VBzfWm9giiv1sf4=-3'],
  ])('%s %s of three 5 MiB parts is the suite’s value', (alg, type, expected) => {
    const sut = multipartChecksum(upload(alg, type), partsOf(ABC, alg));
    expect(sut).toEqual({ algorithm: alg, value: expected });
  });

  it.each(['CRC32', 'CRC32C', 'CRC64NVME'])('%s FULL_OBJECT equals the CRC computed over the whole body', (alg) => {
    const bodies = [Buffer.alloc(5 * MiB + 3, 7), Buffer.from('tail'), Buffer.alloc(0), Buffer.alloc(1000, 1)];
    const sut = multipartChecksum(upload(alg, 'FULL_OBJECT'), partsOf(bodies, alg));
    expect(sut?.value).toBe(checksumOf(alg as 'CRC32', Buffer.concat(bodies)));
  });

  it('is undefined without an algorithm or when a part lacks its checksum', () => {
    expect(multipartChecksum(upload(), partsOf(ABC, 'CRC32'))).toBeUndefined();
    expect(multipartChecksum(upload('CRC32C', 'COMPOSITE'), partsOf(ABC, 'CRC32'))).toBeUndefined();
  });
});

describe(checksumTypeOf.name, () => {
  it('tells a composite value by its -N suffix', () => {
    expect(checksumTypeOf('uWBwpe1dxI4Vw8Gf0X9ynOdw/SS6VBzfWm9giiv1sf4=-3')).toBe('COMPOSITE');
    expect(checksumTypeOf('WgDhBQ==')).toBe('FULL_OBJECT');
  });
});

describe(uploadChecksumType.name, () => {
  it('reads the stored type, and defaults rows written before it as CreateMultipartUpload does', () => {
    expect(uploadChecksumType(upload('CRC32', 'FULL_OBJECT'))).toBe('FULL_OBJECT');
    expect(uploadChecksumType(upload('CRC32'))).toBe('COMPOSITE');
    expect(uploadChecksumType(upload('CRC64NVME'))).toBe('FULL_OBJECT');
    expect(uploadChecksumType(upload())).toBeUndefined();
  });
});

describe(verifyCompletionChecksum.name, () => {
  const full = { algorithm: 'CRC32' as const, value: 'WgDhBQ==' };
  const comp = { algorithm: 'SHA1' as const, value: 'sizjvY4eud3MrcHdZM3cQ/ol39o=-3' };

  it('accepts the computed value (a composite one with or without -N)', () => {
    expect(codeOf(() => verifyCompletionChecksum(upload('CRC32', 'FULL_OBJECT'), full, { CRC32: 'WgDhBQ==' }, 'FULL_OBJECT'))).toBeUndefined();
    expect(codeOf(() => verifyCompletionChecksum(upload('SHA1', 'COMPOSITE'), comp, { SHA1: comp.value }, undefined))).toBeUndefined();
    expect(codeOf(() => verifyCompletionChecksum(upload('SHA1', 'COMPOSITE'), comp, { SHA1: 'sizjvY4eud3MrcHdZM3cQ/ol39o=' }, undefined))).toBeUndefined();
  });

  it('answers BadDigest for another value or type, InvalidRequest for another algorithm or none', () => {
    expect(codeOf(() => verifyCompletionChecksum(upload('CRC32', 'FULL_OBJECT'), full, { CRC32: 'AAAAAA==' }, undefined))).toBe('BadDigest');
    // a full-object value may not drop or gain a suffix
    expect(codeOf(() => verifyCompletionChecksum(upload('CRC32', 'FULL_OBJECT'), full, { CRC32: 'WgDhBQ==-3' }, undefined))).toBe('BadDigest');
    expect(codeOf(() => verifyCompletionChecksum(upload('CRC32', 'FULL_OBJECT'), full, {}, 'COMPOSITE'))).toBe('BadDigest');
    expect(codeOf(() => verifyCompletionChecksum(upload('CRC32', 'FULL_OBJECT'), full, { CRC32C: 'AAAAAA==' }, undefined))).toBe('InvalidRequest');
    expect(codeOf(() => verifyCompletionChecksum(upload(), undefined, { SHA256: 'x' }, undefined))).toBe('InvalidRequest');
  });
});
