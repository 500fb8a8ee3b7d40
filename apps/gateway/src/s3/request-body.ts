import { checksumOf, isValidChecksumValue, S3Error } from '@ostore/s3/protocol';
import type { ChecksumAlgorithm } from '@ostore/s3/core';
import { createHash } from 'crypto';
import { bodyVerifier, contentMd5Of, requestedChecksums } from './object-http';
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
  const requested = integrity === 'md5' ? { algorithms: [], fromHeader: {} } : requestedChecksums(req);
  for (const [alg, value] of Object.entries(requested.fromHeader) as [ChecksumAlgorithm, string][]) {
    if (!isValidChecksumValue(alg, value.trim()))
      throw new S3Error('InvalidRequest', `Value for x-amz-checksum-${alg.toLowerCase()} header is invalid.`);
  }
  const body = await readSmallBody(req, maxBytes);
  const trailed = requested.trailer && req.trailers()[`x-amz-checksum-${requested.trailer.toLowerCase()}`] !== undefined;
  if (integrity === 'required' && !md5 && Object.keys(requested.fromHeader).length === 0 && !trailed) {
    throw new S3Error('InvalidRequest', 'Missing required header for this request: Content-MD5');
  }
  // the same comparisons, and answers, as an object body's (PutObject, UploadPart)
  const checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
  for (const alg of requested.algorithms) checksums[alg] = checksumOf(alg, body);
  bodyVerifier(req, body.length, md5, requested)({ md5: createHash('md5').update(body).digest(), size: body.length, checksums });
  return body;
}
