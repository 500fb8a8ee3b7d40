import { refuseOversizedPut, refuseUnsupportedHeaders, validateResponseOverrides } from '@ostore/s3/protocol';
import type { S3Request } from './s3-request';

/**
 * Checks of an authorized request before its handler runs (and before a 100-continue invites its
 * body): headers asking for what this store does not do (encryption, Object Lock) are refused,
 * never ignored; a PutObject over 5 GiB is EntityTooLarge unread; response-* overrides that could
 * not be header values are InvalidArgument. One place for every operation.
 */
export function checkRequest(req: S3Request): void {
  refuseUnsupportedHeaders(req.operation, req.headers);
  if (req.operation === 'PutObject') refuseOversizedPut(req.headers);
  if (req.operation === 'GetObject' || req.operation === 'HeadObject') validateResponseOverrides(req.queryPairs);
}
