import { hkdfSync } from 'crypto';
import { SEGMENT_BYTES, SEGMENT_OVERHEAD, SealedBodyError } from './segments';

const PART_INFO = 'ostore-sse-part-v1:';

/**
 * The key that seals part `partNumber` of an encrypted multipart upload: derived (HKDF-SHA256)
 * from the upload's data key and the part number. Parts are uploaded independently, so each is a
 * sealed body of its own (segments numbered from 0, the last one flagged); a key per part number
 * keeps a part's segments from being moved to another position of the object undetected. A
 * completed object keeps its parts' numbers in its manifest, and reads each part with its key.
 */
export function partDataKey(dataKey: Buffer, partNumber: number): Buffer {
  if (!Number.isInteger(partNumber) || partNumber < 1) throw new Error(`part number ${partNumber} has no part key`);
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.alloc(0), Buffer.from(PART_INFO + partNumber), 32));
}

/**
 * The plaintext size of a sealed body of `sealedBytes` (the inverse of sealedSize): a multipart
 * object's manifest records its blocks' stored sizes, from which each part's plaintext size follows.
 * Throws SealedBodyError for a size no sealed body can have.
 */
export function plainSizeOf(sealedBytes: number): number {
  const sealedSegment = SEGMENT_BYTES + SEGMENT_OVERHEAD;
  const full = Math.floor(sealedBytes / sealedSegment);
  const rest = sealedBytes % sealedSegment;
  if (rest > 0 && rest <= SEGMENT_OVERHEAD) throw new SealedBodyError(`${sealedBytes} bytes is not the size of a sealed body`);
  return full * SEGMENT_BYTES + (rest > 0 ? rest - SEGMENT_OVERHEAD : 0);
}
