import { refuseOversizedPut, refuseUnsupportedHeaders, S3Error, validateResponseOverrides } from '@ostore/s3/protocol';
import type { S3Request } from './s3-request';

/**
 * Checks of an authorized request before its handler runs (and before a 100-continue invites its
 * body): headers asking for what this store does not do (encryption, Object Lock) are refused,
 * never ignored; a PutObject over 5 GiB is EntityTooLarge unread; response-* overrides that could
 * not be header values are InvalidArgument; a bucket owned by another than the caller expected
 * (x-amz-expected-bucket-owner) is AccessDenied. One place for every operation.
 */
export function checkRequest(req: S3Request): void {
  if (req.bucketInfo) checkExpectedBucketOwner(req.header('x-amz-expected-bucket-owner'), req.bucketInfo.owner.id);
  refuseUnsupportedHeaders(req.operation, req.headers);
  if (req.operation === 'PutObject') refuseOversizedPut(req.headers);
  if (req.operation === 'GetObject' || req.operation === 'HeadObject') validateResponseOverrides(req.queryPairs);
}

/**
 * `x-amz-expected-bucket-owner` (and `x-amz-source-expected-bucket-owner` for a copy source): when
 * given and not the bucket owner's id, S3 answers 403 AccessDenied, even to the owner, so that a
 * client never writes into (or reads from) a bucket it did not mean.
 */
export function checkExpectedBucketOwner(expected: string | undefined, ownerId: string): void {
  if (expected !== undefined && expected !== ownerId) throw new S3Error('AccessDenied', 'Access Denied');
}
