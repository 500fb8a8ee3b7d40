import { compositeChecksum, fullObjectChecksum, parseChecksumType } from '@ostore/s3/protocol';
import type { PartRow, UploadRow } from '@ostore/metastore/data-access';
import type { ChecksumAlgorithm, ChecksumType } from './api';
import { s3err } from './errors';

/**
 * The checksum type of a multipart object (S3's "Checking object integrity"): COMPOSITE is the
 * algorithm over the parts' raw checksums with `-<parts>`; FULL_OBJECT is the CRC of the whole body,
 * combined here from the parts' CRCs and sizes. The stored value is the whole story: a COMPOSITE
 * value ends in `-N`, anything else (every single-request upload too) is FULL_OBJECT.
 */
export function checksumTypeOf(value: string): ChecksumType {
  return /-\d+$/.test(value) ? 'COMPOSITE' : 'FULL_OBJECT';
}

/**
 * The type an upload row carries (migration 023); rows written before it carry none and default as
 * CreateMultipartUpload defaults (CRC64NVME full-object, the others composite).
 */
export function uploadChecksumType(row: Pick<UploadRow, 'checksumAlgorithm' | 'checksumType'>): ChecksumType | undefined {
  if (!row.checksumAlgorithm) return undefined;
  if (row.checksumType === 'COMPOSITE' || row.checksumType === 'FULL_OBJECT') return row.checksumType;
  return parseChecksumType(undefined, row.checksumAlgorithm as ChecksumAlgorithm);
}

/** The object checksum of the chosen parts of an upload, or undefined when a part lacks its checksum. */
export function multipartChecksum(upload: UploadRow, parts: PartRow[]): { algorithm: ChecksumAlgorithm; value: string } | undefined {
  const algorithm = upload.checksumAlgorithm as ChecksumAlgorithm | undefined;
  if (!algorithm || !parts.every((p) => p.checksums[algorithm])) return undefined;
  if (uploadChecksumType(upload) === 'COMPOSITE')
    return { algorithm, value: compositeChecksum(algorithm, parts.map((p) => p.checksums[algorithm])) };
  if (algorithm !== 'CRC32' && algorithm !== 'CRC32C' && algorithm !== 'CRC64NVME') return undefined;
  return { algorithm, value: fullObjectChecksum(algorithm, parts.map((p) => ({ checksum: p.checksums[algorithm], size: p.size }))) };
}

/**
 * Checks what the client sent with CompleteMultipartUpload against the object checksum: the type
 * must be the upload's and the value the computed one (BadDigest, as S3 answers both; a COMPOSITE
 * value may leave out its `-N`); a checksum of another algorithm than the upload's is refused
 * (InvalidRequest), as is one for an upload created without a checksum algorithm.
 */
export function verifyCompletionChecksum(
  upload: UploadRow,
  computed: { algorithm: ChecksumAlgorithm; value: string } | undefined,
  expected: Partial<Record<ChecksumAlgorithm, string>>,
  expectedType: ChecksumType | undefined,
): void {
  const type = uploadChecksumType(upload);
  if (expectedType !== undefined && expectedType !== type)
    throw s3err('BadDigest', `The upload was created using the ${type ?? 'null'} checksum mode. The complete request must use the same checksum mode.`);
  for (const [alg, value] of Object.entries(expected) as [ChecksumAlgorithm, string][]) {
    if (!upload.checksumAlgorithm)
      throw s3err('InvalidRequest', `The upload was created without a checksum algorithm; the complete request cannot carry an ${alg} checksum.`);
    if (alg !== upload.checksumAlgorithm)
      throw s3err('InvalidRequest', `The upload was created using the ${upload.checksumAlgorithm.toLowerCase()} checksum algorithm; the complete request carries an ${alg.toLowerCase()} checksum.`);
    const actual = computed?.value;
    const given = value.trim();
    if (!actual || (given !== actual && !(type === 'COMPOSITE' && given === actual.replace(/-\d+$/, ''))))
      throw s3err('BadDigest', `The ${alg} you specified did not match the calculated checksum.`);
  }
}
