import { checksumOf, isValidChecksumValue, S3Error } from '@ostore/s3/protocol';
import type { ChecksumAlgorithm } from '@ostore/s3/core';
import { createHash } from 'crypto';
import { contentMd5Of, requestedChecksums } from './object-http';
import { readSmallBody } from './responses';
import type { S3Request } from './s3-request';

/**
 * Which integrity headers a small body is checked against:
 * - `md5`: Content-MD5 only (CompleteMultipartUpload, whose x-amz-checksum-* headers are the
 *   object's checksum, not the body's);
 * - `all`: Content-MD5 and an x-amz-checksum-<algorithm> header or trailer (the settings
 *   documents: tagging, lifecycle, CORS, policy, ACL, ...);
 * - `required`: as `all`, and a request with neither is refused, as S3 refuses a DeleteObjects
 *   request without one.
 */
export type BodyIntegrity = 'md5' | 'all' | 'required';

/**
 * A small request body (an XML or JSON document) read whole and checked against the integrity
 * headers the client sent, as S3 does: a malformed Content-MD5 is InvalidDigest, a malformed
 * checksum value InvalidRequest, and a digest that differs from the body's is BadDigest — never
 * a document applied although it is not what the client sent.
 */
export async function readVerifiedBody(req: S3Request, integrity: BodyIntegrity, maxBytes?: number): Promise<Buffer> {
  const md5 = contentMd5Of(req);
  const requested = integrity === 'md5' ? undefined : requestedChecksums(req);
  const expected: Partial<Record<ChecksumAlgorithm, string>> = {};
  for (const [alg, value] of Object.entries(requested?.fromHeader ?? {}) as [ChecksumAlgorithm, string][]) {
    if (!isValidChecksumValue(alg, value.trim()))
      throw new S3Error('InvalidRequest', `Value for x-amz-checksum-${alg.toLowerCase()} header is invalid.`);
    expected[alg] = value.trim();
  }
  const body = await readSmallBody(req, maxBytes);
  if (requested?.trailer) {
    const value = req.trailers()[`x-amz-checksum-${requested.trailer.toLowerCase()}`];
    if (value !== undefined) expected[requested.trailer] = value.trim();
  }
  if (md5 && !createHash('md5').update(body).digest().equals(md5)) {
    throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.');
  }
  for (const [alg, value] of Object.entries(expected) as [ChecksumAlgorithm, string][]) {
    if (checksumOf(alg, body) !== value) throw new S3Error('BadDigest', `The ${alg} you specified did not match the calculated checksum.`);
  }
  if (integrity === 'required' && !md5 && Object.keys(expected).length === 0) {
    throw new S3Error('InvalidRequest', 'Missing required header for this request: Content-MD5');
  }
  return body;
}
